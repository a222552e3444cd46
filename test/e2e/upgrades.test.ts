import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCHEMA_ATTRIBUTE, stateOf } from "../../lambdas/adapters/dynamodb/dynamodb-items";
import { goalKey } from "../../lambdas/adapters/dynamodb/goal-table-keys";
import { RECORD_SCHEMA } from "../../lambdas/core/goal/record-schema";
import type { GoalLoopsClient } from "../../lib/client/index";
import { type BedrockEndpoint, startBedrockEndpoint } from "../../lib/local/bedrock/bedrock-endpoint";
import { loadCloudAssembly } from "../../lib/local/cdk-out/cdk-out";
import { publishedVersionOf, readKeptVersions } from "../../lib/local/cdk-out/kept-versions";
import { localDynamoClient } from "../../lib/local/storage/dynamo";
import { allEvents, followGoal, PROJECT_DIR } from "./local-stack-harness";
import { type LocalStackProcess, startLocalStackProcess, writeFixtures } from "./local-stack-process";
import { runCli } from "./run-cli";
import {
  buildVersionB,
  GAINED_FIELD,
  GAINED_VALUE,
  NEW_PROMPT,
  OLD_PROMPT,
  SCHEMA_B,
} from "./upgrade-version-b";

/** The project's cdk.out, as global setup synthesized it: version A (this checkout's code). */
const ASSEMBLY_A = join(PROJECT_DIR, "cdk.out");

/** Credentials and region for the recorder's signed calls to the stand-in Bedrock (never real ones). */
const RECORDER_ENV = {
  AWS_ACCESS_KEY_ID: "AKIDUPGRADETEST00001",
  AWS_SECRET_ACCESS_KEY: "upgrade-test-secret-key",
  AWS_REGION: "eu-west-1",
};

/** Tell ops (irreversible: waits for an approval), then write a note (no approval): two reason calls. */
const UPGRADE_GOAL = {
  objective: "Tell ops that release 3.0 is out and write the release note",
  successChecks: [
    {
      id: "ops-told",
      description: "notify succeeded",
      verify: { kind: "tool_result", tool: "notify", expect: { status: "success" } },
    },
    { id: "note", description: "the release note is written", verify: { kind: "artifact", path: "note.md" } },
  ],
  tools: ["notify", "workspace_write"],
  limits: { maxSteps: 10 },
  pattern: "react",
  models: { default: "scripted:upgrade-react" },
};

/** The examples of the other two patterns, each made to wait for an approval on its way. */
function exampleWaiting(name: string, requireFor: readonly string[]): Record<string, unknown> {
  const spec = JSON.parse(readFileSync(join(PROJECT_DIR, "examples", "goals", `${name}.json`), "utf8"));
  return { ...spec, approval: { requireFor } };
}
/** Plan-and-Execute waits for its plan to be approved. */
const PLAN_GOAL = exampleWaiting("publish-release-notes", ["plan"]);
/** Reflexion waits before its attempt writes the notes. */
const REFLEXION_GOAL = exampleWaiting("write-upgrade-notes", ["workspace_write"]);

const UPGRADE_FIXTURE = {
  reason: [
    { toolUse: { name: "notify", input: { channel: "ops", message: "release 3.0 is out" } } },
    { toolUse: { name: "workspace_write", input: { path: "note.md", content: "3.0 is out" } } },
  ],
};

/** Approves the goal's pending approval through the API. */
async function approvePending(client: GoalLoopsClient, goalId: string): Promise<void> {
  const [approval] = (await client.listApprovals("pending")).filter((item) => item.goalId === goalId);
  if (approval === undefined) throw new Error(`goal ${goalId} has no pending approval`);
  await client.decideApproval(approval.approvalId, "approve");
}

/** Approves whatever the goal waits for, again and again, until it settles otherwise (at most 10). */
async function approveUntilSettled(client: GoalLoopsClient, goalId: string) {
  for (let round = 0; ; round += 1) {
    const snapshot = (await followGoal(client, goalId, { deadlineMs: 60_000 })).final;
    if (snapshot.status !== "waiting" || snapshot.waitingFor?.kind !== "approval" || round === 10)
      return snapshot;
    await approvePending(client, goalId);
    await untilSettledAfterDecision(client, goalId);
  }
}

/** Until the goal is no longer waiting after a decision, then until it settles. */
async function untilSettledAfterDecision(client: GoalLoopsClient, goalId: string) {
  const deadline = Date.now() + 30_000;
  while ((await client.getGoal(goalId)).status === "waiting" && Date.now() < deadline) {
    await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
  }
  return (await followGoal(client, goalId, { deadlineMs: 60_000 })).final;
}

/** The versions a goal's runs started on, from its `run.started` and `run.reattached` events. */
async function runVersions(client: GoalLoopsClient, goalId: string): Promise<unknown[]> {
  return (await allEvents(client, goalId))
    .filter((event) => event.type === "run.started" || event.type === "run.reattached")
    .map((event) => `${event.type} ${String((event as { version?: unknown }).version)}`);
}

/** The model calls of one goal and role, as the Bedrock endpoint received them, by call index. */
function modelCall(endpoint: BedrockEndpoint, goalId: string, role: string, call: number) {
  const record = endpoint.calls().find((c) => c.goalId === goalId && c.role === role && c.call === call);
  if (record === undefined) throw new Error(`goal ${goalId} made no ${role} call ${call}`);
  const request = record.request as {
    system?: unknown;
    messages?: { content?: Record<string, unknown>[] }[];
  };
  const toolResults = (request.messages ?? []).flatMap((message) =>
    (message.content ?? []).flatMap((block) => (block.toolResult === undefined ? [] : [block.toolResult])),
  );
  return { system: JSON.stringify(request.system), toolResults: JSON.stringify(toolResults) };
}

/** The goal's item as DynamoDB holds it: its record schema attribute and the record in its state. */
async function storedGoal(dynamodbUrl: string, goalId: string) {
  const documents = DynamoDBDocumentClient.from(localDynamoClient(dynamodbUrl));
  try {
    const { Item } = await documents.send(new GetCommand({ TableName: GOAL_TABLE, Key: goalKey(goalId) }));
    if (Item === undefined) throw new Error(`goal ${goalId} has no item`);
    const schema = Number(Item[SCHEMA_ATTRIBUTE] ?? 1);
    const state = stateOf(Item.state as Uint8Array, schema, `goal ${goalId}`) as {
      record: Record<string, unknown>;
    };
    return { item: Item, schema: Item[SCHEMA_ATTRIBUTE] as unknown, record: state.record };
  } finally {
    documents.destroy();
  }
}

/** The goal table of the stack (the same in A and B). */
const GOAL_TABLE =
  loadCloudAssembly(ASSEMBLY_A, {})
    .functions.map((fn) => fn.environment.GOAL_TABLE_NAME)
    .find(Boolean) ?? "";

/** The DynamoDB endpoint a running `goal-loops start` printed. */
function dynamodbOf(stack: LocalStackProcess): string {
  const found = /DynamoDB\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(stack.output());
  if (!found?.[1]) throw new Error(`the stack printed no DynamoDB endpoint:\n${stack.output()}`);
  return found[1];
}

describe("upgrading goal-loops start while goals wait (npm start on a kept state folder)", () => {
  const stateDir = mkdtempSync(join(tmpdir(), "goal-loops-upgrade-"));
  const upstreamFixtures = mkdtempSync(join(tmpdir(), "goal-loops-upgrade-model-"));
  const labelA = publishedVersionOf(ASSEMBLY_A, undefined)?.label ?? "";
  const labelB = `${labelA}-b`;
  let versionB: { readonly assemblyDir: string; readonly cli: string } | undefined;
  /**
   * The endpoint log: every model call of every run goes to this Bedrock endpoint (the local one, in
   * this process) through `--record`, so the test reads the exact requests each version sent.
   */
  let bedrock: BedrockEndpoint | undefined;
  let running: LocalStackProcess | undefined;

  beforeAll(async () => {
    writeFixtures(stateDir, {});
    bedrock = await startBedrockEndpoint({
      fixturesDir: writeFixtures(upstreamFixtures, { "upgrade-react": UPGRADE_FIXTURE }),
    });
    versionB = await buildVersionB(PROJECT_DIR, ASSEMBLY_A, { a: labelA, b: labelB });
  }, 120_000);

  afterAll(async () => {
    await running?.stop();
    await bedrock?.close();
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(upstreamFixtures, { recursive: true, force: true });
    if (versionB !== undefined) rmSync(dirname(versionB.assemblyDir), { recursive: true, force: true });
  });

  /**
   * Stops what runs (Ctrl+C), then runs `goal-loops start --state-dir <kept> --app <cdk.out>` of
   * version A (this repository's CLI on its cdk.out) or B (B's CLI on B's cdk.out).
   */
  async function restart(version: "A" | "B", more: readonly string[] = []): Promise<LocalStackProcess> {
    await running?.stop();
    running = undefined;
    if (versionB === undefined || bedrock === undefined) throw new Error("setup did not finish");
    running = await startLocalStackProcess(stateDir, {
      ...(version === "B" ? { cli: versionB.cli } : {}),
      args: [
        "--app",
        version === "B" ? versionB.assemblyDir : ASSEMBLY_A,
        "--record",
        "upgrade-run",
        ...more,
      ],
      env: { AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrock.url, ...RECORDER_ENV },
    });
    return running;
  }

  it("finishes old goals of every pattern on their version, starts new ones on the new version and on the old one after a rollback, and old code never reads a new record", async () => {
    if (bedrock === undefined) throw new Error("setup did not finish");
    const endpoint = bedrock;
    // Prepare: on version A, a goal of each pattern waits for its approval; then the stack stops
    expect(labelA).toMatch(/^\d+\.\d+\.\d+-[0-9a-f]{8}$/);
    const a = await restart("A");
    const old = await a.client.submitGoal(UPGRADE_GOAL);
    const oldWaiting = (await followGoal(a.client, old.goalId)).final;
    const others = [await a.client.submitGoal(PLAN_GOAL), await a.client.submitGoal(REFLEXION_GOAL)];
    const othersWaiting = [];
    for (const goal of others) othersWaiting.push((await followGoal(a.client, goal.goalId)).final);

    // Act 1: restart on version B (a new prompt, notify's new result shape, a record field and schema)
    const b = await restart("B");
    await approvePending(b.client, old.goalId);
    const oldFinal = await untilSettledAfterDecision(b.client, old.goalId);
    const fresh = await b.client.submitGoal(UPGRADE_GOAL);
    const freshWaiting = (await followGoal(b.client, fresh.goalId)).final;
    const oldSecondCall = modelCall(endpoint, old.goalId, "reason", 1);
    const freshFirstCall = modelCall(endpoint, fresh.goalId, "reason", 0);
    const oldRuns = await runVersions(b.client, old.goalId);
    const othersFinal = [];
    const othersRuns = [];
    for (const goal of others) {
      othersFinal.push(await approveUntilSettled(b.client, goal.goalId));
      othersRuns.push(await runVersions(b.client, goal.goalId));
    }
    const oldStored = await storedGoal(dynamodbOf(b), old.goalId);
    const freshStored = await storedGoal(dynamodbOf(b), fresh.goalId);

    // Act 2: roll back; the goal that started on B finishes on B, a new goal starts on A
    const rolledBack = await restart("B", ["--rollback"]);
    await approvePending(rolledBack.client, fresh.goalId);
    const freshFinal = await untilSettledAfterDecision(rolledBack.client, fresh.goalId);
    const freshSecondCall = modelCall(endpoint, fresh.goalId, "reason", 1);
    const afterRollback = await rolledBack.client.submitGoal(UPGRADE_GOAL);
    const afterRollbackWaiting = (await followGoal(rolledBack.client, afterRollback.goalId)).final;
    const afterRollbackCall = modelCall(endpoint, afterRollback.goalId, "reason", 0);
    const afterRollbackStored = await storedGoal(dynamodbOf(rolledBack), afterRollback.goalId);
    const freshRuns = await runVersions(rolledBack.client, fresh.goalId);

    // Act 3: the CLI lists the versions, then points new goals at B again
    const port = new URL(rolledBack.apiUrl).port;
    const listed = await runCli(["versions", "--port", port]);
    const forward = await runCli(["rollback", "--to", labelB, "--port", port]);
    const afterForward = await rolledBack.client.submitGoal(UPGRADE_GOAL);
    const afterForwardWaiting = (await followGoal(rolledBack.client, afterForward.goalId)).final;
    const kept = readKeptVersions(stateDir);
    const newRecordBefore = await storedGoal(dynamodbOf(rolledBack), afterForward.goalId);

    // Act 4: start version A's code again on the same folder: it meets records B wrote
    const backOnA = await restart("A");
    const readByA = await fetch(`${backOnA.apiUrl}/goals/${afterForward.goalId}`);
    const readByABody = (await readByA.json()) as { error?: { code?: string } };
    const newRecordAfter = await storedGoal(dynamodbOf(backOnA), afterForward.goalId);
    await approvePending(backOnA.client, afterRollback.goalId);
    const afterRollbackFinal = await untilSettledAfterDecision(backOnA.client, afterRollback.goalId);

    // Assess: the old goal ran A's prompt and A's notify after the upgrade; every run of it started on A
    expect(oldWaiting).toMatchObject({ status: "waiting", version: labelA });
    expect(oldFinal).toMatchObject({ status: "completed", version: labelA });
    expect(oldSecondCall.system).toContain(OLD_PROMPT);
    expect(oldSecondCall.system).not.toContain("version B");
    expect(oldSecondCall.toolResults).toContain("createdAt");
    expect(oldSecondCall.toolResults).not.toContain("recordedAt");
    expect(oldRuns).toEqual([`run.started ${labelA}`, `run.reattached ${labelA}`]);
    // The other patterns' goals waited on A and finished on A after the upgrade
    for (const [index, waiting] of othersWaiting.entries()) {
      expect(waiting).toMatchObject({ status: "waiting", version: labelA, waitingFor: { kind: "approval" } });
      expect(othersFinal[index]).toMatchObject({ status: "completed", version: labelA });
      expect(othersRuns[index]).toContain(`run.reattached ${labelA}`);
      expect(othersRuns[index]?.every((run) => String(run).endsWith(` ${labelA}`))).toBe(true);
    }
    // The record: B wrote the old goal in A's schema, without the field A does not know; its own in B's
    expect(oldStored.schema).toBe(RECORD_SCHEMA);
    expect(oldStored.record).not.toHaveProperty(GAINED_FIELD);
    expect(freshStored.schema).toBe(SCHEMA_B);
    expect(freshStored.record).toMatchObject({ [GAINED_FIELD]: GAINED_VALUE });
    // New goals run B: its prompt, and its notify's result shape
    expect(freshWaiting).toMatchObject({ status: "waiting", version: labelB });
    expect(freshFirstCall.system).toContain(NEW_PROMPT);
    expect(freshSecondCall.toolResults).toContain("recordedAt");
    expect(freshSecondCall.toolResults).not.toContain("createdAt");
    // After the rollback: the goal on B finished on B, a new goal runs A again, stored in A's schema
    expect(freshFinal).toMatchObject({ status: "completed", version: labelB });
    expect(freshRuns).toEqual([`run.started ${labelB}`, `run.reattached ${labelB}`]);
    expect(afterRollbackWaiting).toMatchObject({ status: "waiting", version: labelA });
    expect(afterRollbackCall.system).toContain(OLD_PROMPT);
    expect(afterRollbackCall.system).not.toContain("version B");
    expect(afterRollbackStored.schema).toBe(RECORD_SCHEMA);
    expect(afterRollbackStored.record).not.toHaveProperty(GAINED_FIELD);
    // `goal-loops versions`: newest first, A live with the goal that waits on it; `rollback --to B`
    expect(listed.code).toBe(0);
    expect(listed.stdout.split("\n").filter((line) => line !== "")).toEqual([
      expect.stringMatching(new RegExp(`^  ${labelB} .*record schema ${SCHEMA_B}\\)  0 goals running$`)),
      expect.stringMatching(
        new RegExp(`^\\* ${labelA} .*record schema ${RECORD_SCHEMA}\\)  1 goal running  live$`),
      ),
    ]);
    expect(forward).toMatchObject({
      code: 0,
      stdout: expect.stringContaining(`New goals start on ${labelB} (record schema ${SCHEMA_B})`),
    });
    expect(afterForwardWaiting).toMatchObject({ status: "waiting", version: labelB });
    // The state folder keeps both versions, and the alias of every pattern names B again
    expect(kept.versions.map((version) => [version.number, version.label, version.schema])).toEqual([
      [1, labelA, RECORD_SCHEMA],
      [2, labelB, SCHEMA_B],
    ]);
    expect(new Set(Object.values(kept.live))).toEqual(new Set([2]));
    // Version A's code meets a record B wrote: it stops with the named error and writes nothing
    expect(backOnA.output()).toContain(`goal ${afterForward.goalId} not re-attached: RecordSchemaTooNew`);
    expect(readByA.status).toBe(409);
    expect(readByABody.error?.code).toBe("RecordSchemaTooNew");
    expect(newRecordAfter.item).toEqual(newRecordBefore.item);
    expect(newRecordBefore.schema).toBe(SCHEMA_B);
    // while the goal B's code created on A (in A's schema) finishes on A under A's code
    expect(afterRollbackFinal).toMatchObject({ status: "completed", version: labelA });
  }, 420_000);

  it("refuses npm start -- --rollback in memory, where no version is kept", async () => {
    // Act
    const refused = await runCli(["start", "--in-memory", "--rollback", "--port", "0"]);

    // Assess
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("--rollback needs the versions kept in a state folder");
  });
});
