import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { APIGatewayProxyResult } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentAttribute, documentOf } from "../../../lambdas/adapters/dynamodb/dynamodb-items";
import { stepKey, stepStateKey } from "../../../lambdas/adapters/dynamodb/goal-table-keys";
import { sha256Hex } from "../../../lambdas/core/goal/canonical-json";
import type { GoalRecord } from "../../../lambdas/core/goal/goal-record";
import { toSnapshot } from "../../../lambdas/core/goal/snapshot";
import { STEP_STATE_FORMAT } from "../../../lambdas/core/ports/goal-history";
import type { StepRecord } from "../../../lambdas/core/ports/step-log";
import { apiEvent, bodyOf, buildApi } from "../api/api-harness";
import {
  createGoal,
  MODEL_ID,
  ReactLoopDriver,
  ScriptedModel,
  type ServedGoalTable,
  startGoalTable,
  writes,
} from "../loop/support";

/** A ReAct goal of three passes over report.md; the check wants the third. */
const THREE_PASSES = {
  objective: "Write report.md in three passes",
  pattern: "react" as const,
  successChecks: [
    {
      id: "final",
      description: "report.md is final",
      verify: { kind: "artifact" as const, path: "report.md", contains: "FINAL" },
    },
  ],
};

describe("POST /goals/{goalId}/fork and what the fork then does", () => {
  let table: ServedGoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });

  afterAll(async () => {
    await table?.stop();
  });

  /** The API over the loop's table, with the goal history the handler wires in. */
  function api() {
    const { goals, stepLog, workspace } = table.adapters;
    return buildApi(goals, { history: { history: stepLog, stepLog, workspace } }).api;
  }

  async function call(
    method: "GET" | "POST",
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<APIGatewayProxyResult> {
    return api()(apiEvent({ method, path, body, headers, accountId: "tenant-1" }));
  }

  /** A plain document client on the table, to change items as only a person editing them by hand would. */
  function documentClient(): DynamoDBDocumentClient {
    return DynamoDBDocumentClient.from(
      new DynamoDBClient({
        endpoint: table.endpoint,
        region: "us-east-1",
        credentials: { accessKeyId: "local", secretAccessKey: "local" },
      }),
    );
  }

  /** A source that ran its three passes and completed; its tenant is the API caller's. */
  async function completedSource(): Promise<GoalRecord> {
    const goal = await createGoal(table, THREE_PASSES);
    const model = new ScriptedModel({
      reason: [
        writes("report.md", "draft 1"),
        writes("report.md", "draft 2"),
        writes("report.md", "FINAL 3"),
      ],
    });
    const loop = new ReactLoopDriver(table, model);
    await loop.run(goal.goalId);
    const done = await loop.goal(goal.goalId);
    expect(done).toMatchObject({ status: "completed", steps: 3 });
    return done;
  }

  it("starts a fork after step 2 whose next call is the source's third, and which pays only for it", async () => {
    // Prepare
    const source = await completedSource();

    // Act
    const answer = await call("POST", `/goals/${source.goalId}/fork`, { atStep: 2 });
    const { goalId } = bodyOf(answer) as { goalId: string };
    const forkModel = new ScriptedModel({ reason: [writes("report.md", "FINAL 3, forked")] });
    const loop = new ReactLoopDriver(table, forkModel);
    await loop.run(goalId, "f1-r1");
    const fork = await loop.goal(goalId);

    // Assess
    expect(answer.statusCode).toBe(202);
    expect(bodyOf(answer)).toMatchObject({
      status: "running",
      runId: "f1-r1",
      forkedFrom: { goalId: source.goalId, step: 2 },
    });
    expect(fork).toMatchObject({ status: "completed", steps: 3, tenantId: source.tenantId });
    expect(forkModel.requests.map((request) => `${request.role} ${request.call}`)).toEqual(["reason 2"]);
    const snapshot = toSnapshot(fork);
    expect(snapshot.forkedFrom).toEqual({ goalId: source.goalId, step: 2 });
    expect(snapshot.usage).toMatchObject({ modelCalls: 1, inherited: { modelCalls: 2, inputTokens: 200 } });
    expect(snapshot.usageByRole.reason).toMatchObject({ modelCalls: 1 });
    const file = await table.adapters.workspace.readFile(goalId, "report.md");
    expect(file?.content).toBe("FINAL 3, forked");
    expect(file?.version).toBe(2);
    // The fork inherited the source's step 2 file as its version 1.
    await expect(table.adapters.workspace.readVersion(goalId, "report.md", 1)).resolves.toEqual({
      deleted: false,
      content: "draft 2",
      sha256: sha256Hex("draft 2"),
    });
  });

  it("answers a repeated request with the same Idempotency-Key with the same fork, and another request with 422", async () => {
    // Prepare
    const source = await completedSource();
    const path = `/goals/${source.goalId}/fork`;

    // Act
    const first = await call("POST", path, { atStep: 1 }, { "Idempotency-Key": "fork-once" });
    const again = await call("POST", path, { atStep: 1 }, { "Idempotency-Key": "fork-once" });
    const other = await call("POST", path, { atStep: 2 }, { "Idempotency-Key": "fork-once" });

    // Assess
    expect(first.statusCode).toBe(202);
    expect(bodyOf(again)).toEqual(bodyOf(first));
    expect(other.statusCode).toBe(422);
    expect(bodyOf(other)).toMatchObject({ error: { code: "IdempotencyKeyReused" } });
  });

  it("refuses bad input with a 400 naming the field, and creates nothing", async () => {
    // Prepare
    const source = await completedSource();
    const path = `/goals/${source.goalId}/fork`;
    const goalsBefore = (await table.adapters.goals.listGoals({ tenantId: source.tenantId, limit: 1000 }))
      .items.length;

    // Act
    const answers = await Promise.all([
      call("POST", path, { atStep: 4 }),
      call("POST", path, { atStep: 0 }),
      call("POST", path, { atStep: 1, tools: ["notify"] }),
      call("POST", path, { atStep: 1, limits: { maxSteps: 0 } }),
      call("POST", path, {
        atStep: 1,
        revision: { type: "add_constraint", content: "x", target: { step: 1 } },
      }),
      call("POST", path, {
        atStep: 1,
        decisions: [{ approvalId: `ap-${"0".repeat(32)}`, decision: "approve" }],
      }),
    ]);

    // Assess
    const issues = answers.map((answer) => ({
      status: answer.statusCode,
      path: (bodyOf(answer).error as { issues?: { path: string }[] }).issues?.[0]?.path,
    }));
    expect(issues).toEqual([
      { status: 400, path: "atStep" },
      { status: 400, path: "atStep" },
      { status: 400, path: "tools" },
      { status: 400, path: "limits.maxSteps" },
      { status: 400, path: "revision.target" },
      { status: 400, path: "decisions.0.approvalId" },
    ]);
    expect(JSON.stringify(bodyOf(answers[0] as APIGatewayProxyResult))).toContain("step 4 does not exist");
    const goalsAfter = (await table.adapters.goals.listGoals({ tenantId: source.tenantId, limit: 1000 }))
      .items.length;
    expect(goalsAfter).toBe(goalsBefore);
  });

  it("forks a fork at a step it shares with its source, and at one of its own", async () => {
    // Prepare: a fork after step 2 that makes two steps of its own (3 and 4).
    const source = await completedSource();
    const first = bodyOf(await call("POST", `/goals/${source.goalId}/fork`, { atStep: 2 })) as {
      goalId: string;
    };
    const forkModel = new ScriptedModel({
      reason: [writes("report.md", "draft 3b"), writes("report.md", "FINAL 4b")],
    });
    await new ReactLoopDriver(table, forkModel).run(first.goalId, "f1-r1");

    // Act
    const shared = await call("POST", `/goals/${first.goalId}/fork`, { atStep: 1 });
    const own = await call("POST", `/goals/${first.goalId}/fork`, { atStep: 3 });
    const ownId = (bodyOf(own) as { goalId: string }).goalId;
    const nestedModel = new ScriptedModel({ reason: [writes("report.md", "FINAL 4c")] });
    await new ReactLoopDriver(table, nestedModel).run(ownId, "f2-r1");

    // Assess: a shared step comes from the source's history (generation 1 again); an own step from
    // the fork's, whose run ids the next generation names apart.
    expect(bodyOf(shared)).toMatchObject({ runId: "f1-r1", forkedFrom: { goalId: first.goalId, step: 1 } });
    expect(bodyOf(own)).toMatchObject({ runId: "f2-r1", forkedFrom: { goalId: first.goalId, step: 3 } });
    expect(nestedModel.requests.map((request) => `${request.role} ${request.call}`)).toEqual(["reason 3"]);
    const nested = await table.adapters.goals.getGoal(ownId);
    expect(nested?.record).toMatchObject({ status: "completed", steps: 4 });
    expect(toSnapshot(nested?.record as GoalRecord).usage).toMatchObject({
      modelCalls: 1,
      inherited: { modelCalls: 3 },
    });
    const replay = await call("POST", `/goals/${ownId}/replay`);
    expect(bodyOf(replay)).toMatchObject({ agrees: true, toStep: 4 });
  });

  it("refuses a step whose state was never recorded, or was recorded in a newer format", async () => {
    // Prepare: step 1 loses its state (as before states were recorded); step 2's claims a format
    // past this code's (a later goal-loops wrote it).
    const newerFormat = STEP_STATE_FORMAT + 1;
    const source = await completedSource();
    const documents = documentClient();
    await documents.send(
      new DeleteCommand({ TableName: table.tableName, Key: stepStateKey(source.goalId, 1) }),
    );
    await documents.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...stepStateKey(source.goalId, 2), format: newerFormat, step: 2, state: new Uint8Array([1]) },
      }),
    );

    // Act
    const missing = await call("POST", `/goals/${source.goalId}/fork`, { atStep: 1 });
    const newer = await call("POST", `/goals/${source.goalId}/fork`, { atStep: 2 });

    // Assess
    expect(missing.statusCode).toBe(400);
    expect(JSON.stringify(bodyOf(missing))).toContain("no recorded state");
    expect(newer.statusCode).toBe(400);
    expect(JSON.stringify(bodyOf(newer))).toContain(`newer goal-loops (state format ${newerFormat})`);
    documents.destroy();
  });

  it("lists the steps as a timeline a fork can start from", async () => {
    // Prepare
    const source = await completedSource();

    // Act
    const answer = await call("GET", `/goals/${source.goalId}/steps`);

    // Assess
    expect(answer.statusCode).toBe(200);
    const { items } = bodyOf(answer) as { items: Record<string, unknown>[] };
    expect(items.map((item) => [item.step, item.label, item.forkable, item.inherited])).toEqual([
      [1, "iteration 1", true, false],
      [2, "iteration 2", true, false],
      [3, "iteration 3", true, false],
    ]);
    expect(items[0]).toMatchObject({
      did: { toolCalls: [{ name: "workspace_write", status: "success" }] },
      checkpoint: { role: "reason", call: 0, runId: "r1", iteration: 0 },
      cost: { modelCalls: 1 },
      workspace: { files: 1 },
    });
  });

  it("replays a goal whose record agrees, and names the first step whose logged turn was changed", async () => {
    // Prepare
    const source = await completedSource();
    const agreed = await call("POST", `/goals/${source.goalId}/replay`);
    const documents = documentClient();
    const stored = await documents.send(
      new GetCommand({ TableName: table.tableName, Key: stepKey(source.goalId, 2) }),
    );
    // The step record as its item holds it (encoded from record schema 3), edited and written back so.
    const record = structuredClone(documentOf(stored.Item?.record, "step record")) as StepRecord;
    const edited = {
      ...stored.Item,
      record: documentAttribute({ ...record, turn: { ...record.turn, modelId: `${MODEL_ID}-edited` } }),
    };
    await documents.send(new PutCommand({ TableName: table.tableName, Item: edited }));
    documents.destroy();

    // Act
    const replay = await call("POST", `/goals/${source.goalId}/replay`);
    const toOne = await call("POST", `/goals/${source.goalId}/replay`, { toStep: 1 });
    const tooFar = await call("POST", `/goals/${source.goalId}/replay`, { toStep: 9 });

    // Assess
    expect(bodyOf(agreed)).toMatchObject({ agrees: true, toStep: 3 });
    expect(bodyOf(replay)).toMatchObject({ agrees: false, firstDisagreement: { step: 2, field: "turn" } });
    expect(bodyOf(toOne)).toMatchObject({ agrees: true, toStep: 1 });
    expect(tooFar.statusCode).toBe(400);
    expect(bodyOf(tooFar)).toMatchObject({ error: { issues: [{ path: "toStep" }] } });
  });

  it("answers 503 when no goal history is wired into the API", async () => {
    // Prepare
    const source = await completedSource();
    const bare = buildApi(table.adapters.goals).api;

    // Act
    const answer = await bare(
      apiEvent({ method: "GET", path: `/goals/${source.goalId}/steps`, accountId: "tenant-1" }),
    );

    // Assess
    expect(answer.statusCode).toBe(503);
  });
});
