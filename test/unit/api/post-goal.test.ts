import {
  ExecutionAlreadyExists,
  ExecutionLimitExceeded,
  StartExecutionCommand,
  StateMachineDoesNotExist,
} from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freezeServerTools } from "../../../lambdas/core/goal/frozen-tools";
import { GOAL_ID_PATTERN, goalIdForIdempotencyKey } from "../../../lambdas/core/goal/goal-ids";
import { FIRST_RUN_ID, intakeGoal } from "../../../lambdas/core/intake/goal-intake";
import {
  aGoalSpec,
  apiEvent,
  aTenant,
  bodyOf,
  buildApi,
  NOW,
  REACT_ARN,
  type StoreBackend,
  startStoreBackend,
} from "./api-harness";

describe("POST /goals", () => {
  let backend: StoreBackend;

  beforeAll(async () => {
    backend = await startStoreBackend();
  });

  afterAll(async () => {
    await backend.stop();
  });

  const post = (accountId: string, body: unknown, headers: Record<string, string> = {}) =>
    apiEvent({ method: "POST", path: "/goals", body, headers, accountId });

  it("stores the goal, starts run r1 of the pattern's state machine and answers 202", async () => {
    // Prepare
    const { api, sfn } = buildApi(backend.store);
    const tenant = aTenant();

    // Act
    const result = await api(post(tenant, aGoalSpec()));

    // Assess
    expect(result.statusCode).toBe(202);
    const body = bodyOf(result);
    expect(body).toEqual({
      goalId: expect.stringMatching(GOAL_ID_PATTERN),
      status: "running",
      pattern: "react",
      runId: "r1",
    });
    const goalId = String(body.goalId);
    expect(result.headers?.location).toBe(`/goals/${goalId}`);
    const stored = await backend.store.getGoal(goalId);
    expect(stored?.record).toMatchObject({
      tenantId: tenant,
      status: "running",
      runId: "r1",
      createdAt: NOW.toISOString(),
    });
    const starts = sfn.commandCalls(StartExecutionCommand).map((call) => call.args[0].input);
    expect(starts).toEqual([
      // No version directory here: a goal without runsOn starts on its pattern's live alias.
      {
        stateMachineArn: `${REACT_ARN}:live`,
        name: `${goalId}-r1`,
        input: JSON.stringify({ goalId, runId: "r1" }),
      },
    ]);
  });

  it("gives a repeat with the same Idempotency-Key the same goal, stored once", async () => {
    // Prepare
    const { api, sfn } = buildApi(backend.store);
    const tenant = aTenant();

    // Act: header names are case-insensitive
    const first = await api(post(tenant, aGoalSpec(), { "Idempotency-Key": "order-42" }));
    const second = await api(post(tenant, aGoalSpec(), { "idempotency-key": "order-42" }));

    // Assess
    expect(first.statusCode).toBe(202);
    expect(second.statusCode).toBe(202);
    expect(bodyOf(second)).toEqual(bodyOf(first));
    expect(bodyOf(first).goalId).toBe(goalIdForIdempotencyKey(tenant, "order-42"));
    const listed = await backend.store.listGoals({ tenantId: tenant });
    expect(listed.items).toHaveLength(1);
    const names = sfn.commandCalls(StartExecutionCommand).map((call) => call.args[0].input.name);
    expect(names).toEqual([`${bodyOf(first).goalId}-r1`, `${bodyOf(first).goalId}-r1`]);
  });

  it("keeps two tenants' equal Idempotency-Keys apart", async () => {
    // Prepare
    const { api } = buildApi(backend.store);

    // Act
    const a = await api(post(aTenant(), aGoalSpec(), { "Idempotency-Key": "same-key" }));
    const b = await api(post(aTenant(), aGoalSpec(), { "Idempotency-Key": "same-key" }));

    // Assess
    expect(bodyOf(a).goalId).not.toBe(bodyOf(b).goalId);
  });

  it("starts the run a crashed first request stored but never started, when the client retries", async () => {
    // Prepare: the first request stored the goal and died before StartExecution
    const { api, sfn } = buildApi(backend.store);
    const tenant = aTenant();
    const goalId = goalIdForIdempotencyKey(tenant, "crash-1");
    const created = await intakeGoal({ body: aGoalSpec(), goalId, tenantId: tenant, now: NOW });
    await backend.store.createGoal(created.record, created.events);

    // Act
    const retry = await api(post(tenant, aGoalSpec(), { "Idempotency-Key": "crash-1" }));

    // Assess
    expect(retry.statusCode).toBe(202);
    expect(bodyOf(retry)).toEqual({ goalId, status: "running", pattern: "react", runId: FIRST_RUN_ID });
    const starts = sfn.commandCalls(StartExecutionCommand).map((call) => call.args[0].input);
    expect(starts).toEqual([
      // No version directory here: a goal without runsOn starts on its pattern's live alias.
      {
        stateMachineArn: `${REACT_ARN}:live`,
        name: `${goalId}-r1`,
        input: JSON.stringify({ goalId, runId: "r1" }),
      },
    ]);
  });

  it("answers a retried POST from the stored goal: its MCP servers are not listed again", async () => {
    // Prepare: a catalog that lists once, then is down (as a server that died after the first POST)
    const listed: string[][] = [];
    const mcp = {
      servers: ["desk"],
      list: async (servers: readonly string[]) => {
        listed.push([...servers]);
        if (listed.length > 1) return { desk: { error: { name: "McpServerUnreachable", message: "down" } } };
        const lookup = {
          name: "lookup",
          inputSchema: { type: "object" },
          annotations: { readOnlyHint: true },
        };
        return { desk: freezeServerTools("desk", [lookup], {}) };
      },
    };
    const { api } = buildApi(backend.store, { mcp, toolNames: ["workspace_write"] });
    const tenant = aTenant();
    const spec = aGoalSpec({ tools: ["workspace_write", "desk__*"] });

    // Act
    const first = await api(post(tenant, spec, { "Idempotency-Key": "mcp-1" }));
    const retry = await api(post(tenant, spec, { "Idempotency-Key": "mcp-1" }));
    const fresh = await api(post(tenant, spec, { "Idempotency-Key": "mcp-2" }));

    // Assess
    expect(first.statusCode).toBe(202);
    expect(retry.statusCode).toBe(202);
    expect(bodyOf(retry).goalId).toBe(bodyOf(first).goalId);
    expect(listed).toEqual([["desk"], ["desk"]]);
    expect(fresh.statusCode).toBe(502);
    expect(bodyOf(fresh)).toMatchObject({ error: { code: "McpServerUnavailable", server: "desk" } });
  });

  it("answers 202 when Step Functions already has the execution (an earlier attempt started it)", async () => {
    // Prepare
    const { api, sfn } = buildApi(backend.store);
    sfn.on(StartExecutionCommand).rejects(new ExecutionAlreadyExists({ message: "exists", $metadata: {} }));

    // Act
    const result = await api(post(aTenant(), aGoalSpec(), { "Idempotency-Key": "started-before" }));

    // Assess
    expect(result.statusCode).toBe(202);
    const stored = await backend.store.getGoal(String(bodyOf(result).goalId));
    expect(stored?.record.status).toBe("running");
  });

  it("refuses an Idempotency-Key reused with a different GoalSpec (422)", async () => {
    // Prepare
    const { api } = buildApi(backend.store);
    const tenant = aTenant();
    const first = await api(post(tenant, aGoalSpec(), { "Idempotency-Key": "reused" }));

    // Act
    const second = await api(
      post(tenant, aGoalSpec({ objective: "Something else entirely" }), { "Idempotency-Key": "reused" }),
    );

    // Assess
    expect(second.statusCode).toBe(422);
    expect(bodyOf(second).error).toMatchObject({
      code: "IdempotencyKeyReused",
      goalId: bodyOf(first).goalId,
    });
  });

  it("refuses an Idempotency-Key with spaces or control characters", async () => {
    // Prepare
    const { api, sfn } = buildApi(backend.store);

    // Act
    const result = await api(post(aTenant(), aGoalSpec(), { "Idempotency-Key": "has space" }));

    // Assess
    expect(result.statusCode).toBe(400);
    expect(bodyOf(result).error).toMatchObject({
      code: "ValidationError",
      issues: [{ path: "Idempotency-Key", message: expect.any(String) }],
    });
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });

  describe("validation", () => {
    it("answers 400 with the path of every bad field", async () => {
      // Prepare
      const { api, sfn } = buildApi(backend.store);
      const tenant = aTenant();
      const spec = {
        ...aGoalSpec(),
        successChecks: [{ id: "c1", description: "a file", verify: { kind: "artifact" } }],
        limits: { maxSteps: 0 },
        extra: true,
      };

      // Act
      const result = await api(post(tenant, spec));

      // Assess
      expect(result.statusCode).toBe(400);
      const error = bodyOf(result).error;
      expect(error).toMatchObject({ code: "ValidationError", message: expect.stringContaining("GoalSpec") });
      const paths = (error as { issues: { path: string }[] }).issues.map((issue) => issue.path);
      expect(paths).toEqual(
        expect.arrayContaining(["successChecks.0.verify.path", "limits.maxSteps", "extra"]),
      );
      expect((error as { issues: { path: string; message: string }[] }).issues).toContainEqual({
        path: "extra",
        message: "unknown field",
      });
      expect((await backend.store.listGoals({ tenantId: tenant })).items).toHaveLength(0);
      expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
    });

    it("answers 400 on a body that is not JSON", async () => {
      // Prepare
      const { api } = buildApi(backend.store);

      // Act
      const result = await api(post(aTenant(), "{not json"));

      // Assess
      expect(result.statusCode).toBe(400);
      expect(bodyOf(result)).toEqual({
        error: {
          code: "ValidationError",
          message: expect.any(String),
          issues: [{ path: "", message: "body is not valid JSON" }],
        },
      });
    });

    it("answers 400 on a missing body", async () => {
      // Prepare
      const { api } = buildApi(backend.store);

      // Act
      const result = await api(apiEvent({ method: "POST", path: "/goals", accountId: aTenant() }));

      // Assess
      expect(result.statusCode).toBe(400);
      expect(bodyOf(result).error).toMatchObject({ code: "ValidationError", issues: [{ path: "" }] });
    });

    it("reads a base64-encoded body", async () => {
      // Prepare
      const { api } = buildApi(backend.store);
      const event = post(aTenant(), Buffer.from(JSON.stringify(aGoalSpec())).toString("base64"));

      // Act
      const result = await api({ ...event, isBase64Encoded: true });

      // Assess
      expect(result.statusCode).toBe(202);
    });
  });

  it("answers 400 PatternUnavailable naming a pattern with no state machine, and stores nothing", async () => {
    // Prepare
    const { api, sfn } = buildApi(backend.store);
    const tenant = aTenant();

    // Act
    const result = await api(post(tenant, aGoalSpec({ pattern: "reflexion" })));

    // Assess
    expect(result.statusCode).toBe(400);
    expect(bodyOf(result).error).toMatchObject({
      code: "PatternUnavailable",
      pattern: "reflexion",
      message: expect.stringContaining("reflexion"),
    });
    expect((await backend.store.listGoals({ tenantId: tenant })).items).toHaveLength(0);
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });

  it("records the selector's fallback when no rule chose the pattern", async () => {
    // Prepare
    const { api } = buildApi(backend.store);

    // Act
    const result = await api(post(aTenant(), aGoalSpec({ pattern: "auto" })));

    // Assess
    expect(bodyOf(result)).toMatchObject({ pattern: "react" });
    const stored = await backend.store.getGoal(String(bodyOf(result).goalId));
    expect(stored?.record.patternReason).toContain("fallback used");
  });

  describe("when Step Functions does not start the run", () => {
    it("marks the goal failed (infrastructure) and answers 502 naming it", async () => {
      // Prepare
      const { api, sfn } = buildApi(backend.store);
      sfn
        .on(StartExecutionCommand)
        .rejects(new StateMachineDoesNotExist({ message: "no such state machine", $metadata: {} }));

      // Act
      const result = await api(post(aTenant(), aGoalSpec()));

      // Assess
      expect(result.statusCode).toBe(502);
      const error = bodyOf(result).error as Record<string, unknown>;
      expect(error).toMatchObject({
        code: "ExecutionStartFailed",
        goalId: expect.stringMatching(GOAL_ID_PATTERN),
      });
      expect(JSON.stringify(error)).not.toContain("no such state machine");
      const stored = await backend.store.getGoal(String(error.goalId));
      expect(stored?.record).toMatchObject({
        status: "failed",
        stopReason: { kind: "infrastructure", detail: "ExecutionStartError" },
      });
      const events = await backend.store.listEvents(String(error.goalId), {});
      expect(events.items.map((event) => event.type)).toEqual(["goal.created", "goal.failed"]);
    });

    it("does not mark failed a goal a step has already loaded (version > 1)", async () => {
      // Prepare: a stored goal whose run already committed once, then a retry Step Functions refuses
      const { api, sfn } = buildApi(backend.store);
      const tenant = aTenant();
      const goalId = goalIdForIdempotencyKey(tenant, "loaded");
      const created = await intakeGoal({ body: aGoalSpec(), goalId, tenantId: tenant, now: NOW });
      const v1 = await backend.store.createGoal(created.record, created.events);
      await backend.store.commit(v1.record, v1.version, [{ type: "run.started", at: NOW.toISOString() }]);
      sfn
        .on(StartExecutionCommand)
        .rejects(new ExecutionLimitExceeded({ message: "too many", $metadata: {} }));

      // Act
      const result = await api(post(tenant, aGoalSpec(), { "Idempotency-Key": "loaded" }));

      // Assess
      expect(result.statusCode).toBe(502);
      const stored = await backend.store.getGoal(goalId);
      expect(stored?.record.status).toBe("running");
    });
  });
});
