import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GoalLoopsClient } from "../../lib/client/index";
import { publishedVersionOf, readKeptVersions } from "../../lib/local/cdk-out/kept-versions";
import type { LocalStack } from "../../lib/local/local-stack";
import { allEvents, type E2eStack, followGoal, PROJECT_DIR, startE2eStack } from "./local-stack-harness";
import { runCli } from "./run-cli";

/** The project's cdk.out, as global setup synthesized it: version A. */
const ASSEMBLY_A = join(PROJECT_DIR, "cdk.out");

/** The sentence of the reason prompt version B changes, and what B says instead. */
const OLD_PROMPT = "You are an agent working toward the goal below, one step at a time.";
const NEW_PROMPT = "You are an agent working toward the goal below, one careful step at a time (version B).";

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

/**
 * Version B: a copy of version A with what a new deploy changes: the reason prompt's first
 * sentence (in every bundle that has it) and the deploy label (which a real synth derives from the
 * definitions and the functions' code). Inside cdk.out, as a synth's output is.
 */
function assemblyB(labelA: string, labelB: string): string {
  const dir = mkdtempSync(join(ASSEMBLY_A, "e2e-upgrade-"));
  for (const entry of readdirSync(ASSEMBLY_A, { withFileTypes: true })) {
    if (entry.isDirectory() && !entry.name.startsWith("asset.")) continue;
    cpSync(join(ASSEMBLY_A, entry.name), join(dir, entry.name), { recursive: true });
  }
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const files = entry.isDirectory()
      ? readdirSync(join(dir, entry.name)).map((file) => join(dir, entry.name, file))
      : [join(dir, entry.name)];
    for (const file of files.filter((name) => name.endsWith(".mjs") || name.endsWith(".template.json"))) {
      const text = readFileSync(file, "utf8");
      const changed = text.replaceAll(OLD_PROMPT, NEW_PROMPT).replaceAll(labelA, labelB);
      if (changed !== text) writeFileSync(file, changed);
    }
  }
  return dir;
}

/** The system prompt of a goal's n-th reason call, as the local Bedrock endpoint received it. */
function reasonSystem(stack: LocalStack, goalId: string, call: number): string {
  const record = stack.bedrock
    .calls()
    .find((c) => c.goalId === goalId && c.role === "reason" && c.call === call);
  if (record === undefined) throw new Error(`goal ${goalId} made no reason call ${call}`);
  return JSON.stringify(record.request.system);
}

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

describe("upgrading the local stack while goals wait (npm start on a kept state folder)", () => {
  const stateDir = mkdtempSync(join(tmpdir(), "goal-loops-upgrade-"));
  const labelA = publishedVersionOf(ASSEMBLY_A, undefined)?.label ?? "";
  const labelB = `${labelA}-b`;
  let dirB = "";
  let running: E2eStack | undefined;

  beforeAll(() => {
    mkdirSync(stateDir, { recursive: true });
    dirB = assemblyB(labelA, labelB);
  });

  afterAll(async () => {
    await running?.stop();
    rmSync(stateDir, { recursive: true, force: true });
    if (dirB !== "") rmSync(dirB, { recursive: true, force: true });
  });

  /** Stops what runs, then starts the stack on `cdkOutDir` with the kept state folder. */
  async function restart(cdkOutDir: string, rollback?: { to?: number }): Promise<E2eStack> {
    await running?.stop();
    running = undefined;
    running = await startE2eStack({ stateDir, cdkOutDir, ...(rollback === undefined ? {} : { rollback }) });
    running.writeFixture("upgrade-react", UPGRADE_FIXTURE);
    return running;
  }

  it("finishes old goals of every pattern on their version, starts new ones on the new version, and on the old one after a rollback", async () => {
    // Prepare: on version A, a goal waits for its approval; then the stack stops
    expect(labelA).toMatch(/^\d+\.\d+\.\d+-[0-9a-f]{8}$/);
    const a = await restart(ASSEMBLY_A);
    const old = await a.client.submitGoal(UPGRADE_GOAL);
    const oldWaiting = (await followGoal(a.client, old.goalId)).final;
    const others = [await a.client.submitGoal(PLAN_GOAL), await a.client.submitGoal(REFLEXION_GOAL)];
    const othersWaiting = [];
    for (const goal of others) othersWaiting.push((await followGoal(a.client, goal.goalId)).final);

    // Act 1: restart on version B, approve the old goal, start a new one
    const b = await restart(dirB);
    await approvePending(b.client, old.goalId);
    const oldFinal = await untilSettledAfterDecision(b.client, old.goalId);
    const fresh = await b.client.submitGoal(UPGRADE_GOAL);
    const freshWaiting = (await followGoal(b.client, fresh.goalId)).final;
    const oldSecondPrompt = reasonSystem(b.stack, old.goalId, 1);
    const freshPrompt = reasonSystem(b.stack, fresh.goalId, 0);
    const oldRuns = await runVersions(b.client, old.goalId);
    const othersFinal = [];
    const othersRuns = [];
    for (const goal of others) {
      othersFinal.push(await approveUntilSettled(b.client, goal.goalId));
      othersRuns.push(await runVersions(b.client, goal.goalId));
    }

    // Act 2: roll back; the goal that started on B finishes on B, a new goal starts on A
    const rolledBack = await restart(dirB, {});
    await approvePending(rolledBack.client, fresh.goalId);
    const freshFinal = await untilSettledAfterDecision(rolledBack.client, fresh.goalId);
    const afterRollback = await rolledBack.client.submitGoal(UPGRADE_GOAL);
    const afterRollbackWaiting = (await followGoal(rolledBack.client, afterRollback.goalId)).final;
    const afterRollbackPrompt = reasonSystem(rolledBack.stack, afterRollback.goalId, 0);
    const freshRuns = await runVersions(rolledBack.client, fresh.goalId);

    // Act 3: the CLI lists the versions, then points new goals at B again
    const port = new URL(rolledBack.stack.apiUrl).port;
    const listed = await runCli(["versions", "--port", port]);
    const forward = await runCli(["rollback", "--to", labelB, "--port", port]);
    const afterForward = await rolledBack.client.submitGoal(UPGRADE_GOAL);
    const afterForwardWaiting = (await followGoal(rolledBack.client, afterForward.goalId)).final;

    // Assess: the old goal ran A's prompt after the upgrade, and every run of it started on A
    expect(oldWaiting).toMatchObject({ status: "waiting", version: labelA });
    expect(oldFinal).toMatchObject({ status: "completed", version: labelA });
    expect(oldSecondPrompt).toContain(OLD_PROMPT);
    expect(oldSecondPrompt).not.toContain("version B");
    expect(oldRuns).toEqual([`run.started ${labelA}`, `run.reattached ${labelA}`]);
    // The other patterns' goals waited on A and finished on A after the upgrade
    for (const [index, waiting] of othersWaiting.entries()) {
      expect(waiting).toMatchObject({ status: "waiting", version: labelA, waitingFor: { kind: "approval" } });
      expect(othersFinal[index]).toMatchObject({ status: "completed", version: labelA });
      expect(othersRuns[index]).toContain(`run.reattached ${labelA}`);
      expect(othersRuns[index]?.every((run) => String(run).endsWith(` ${labelA}`))).toBe(true);
    }
    // New goals run B
    expect(freshWaiting).toMatchObject({ status: "waiting", version: labelB });
    expect(freshPrompt).toContain(NEW_PROMPT);
    // After the rollback: the goal on B finished on B, a new goal runs A again
    expect(freshFinal).toMatchObject({ status: "completed", version: labelB });
    expect(freshRuns).toEqual([`run.started ${labelB}`, `run.reattached ${labelB}`]);
    expect(afterRollbackWaiting).toMatchObject({ status: "waiting", version: labelA });
    expect(afterRollbackPrompt).toContain(OLD_PROMPT);
    expect(afterRollbackPrompt).not.toContain("version B");
    // `goal-loops versions`: newest first, A live with the goal that waits on it; `rollback --to B`
    expect(listed.code).toBe(0);
    expect(listed.stdout.split("\n").filter((line) => line !== "")).toEqual([
      expect.stringMatching(new RegExp(`^  ${labelB} .*0 goals running$`)),
      expect.stringMatching(new RegExp(`^\\* ${labelA} .*1 goal running  live$`)),
    ]);
    expect(forward).toMatchObject({
      code: 0,
      stdout: expect.stringContaining(`New goals start on ${labelB}`),
    });
    expect(afterForwardWaiting).toMatchObject({ status: "waiting", version: labelB });
    // The state folder keeps both versions, and the alias of every pattern names B again
    const kept = readKeptVersions(stateDir);
    expect(kept.versions.map((version) => [version.number, version.label])).toEqual([
      [1, labelA],
      [2, labelB],
    ]);
    expect(new Set(Object.values(kept.live))).toEqual(new Set([2]));
  }, 300_000);

  it("refuses npm start -- --rollback in memory, where no version is kept", async () => {
    // Act
    const refused = await runCli(["start", "--in-memory", "--rollback", "--port", "0"]);

    // Assess
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("--rollback needs the versions kept in a state folder");
  });
});
