import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FATAL_MODEL_ERRORS } from "../../../lambdas/adapters/bedrock-errors";
import { recordFailure } from "../../../lambdas/core/loop/record-failure";
import {
  createGoal,
  failsWith,
  type GoalTable,
  ReactLoopDriver,
  reactSpec,
  ScriptedModel,
  SETTINGS,
  startGoalTable,
  steppingClock,
  writes,
} from "./support";

const FATAL = { fatalErrorNames: new Set<string>([...FATAL_MODEL_ERRORS, "ValidationError"]) };

/** What a Step Functions Catch puts in `$.error` for an error a Lambda function threw. */
function caught(error: Error) {
  return {
    Error: error.name,
    Cause: JSON.stringify({ errorType: error.name, errorMessage: error.message, trace: [] }),
  };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Error) return error;
    throw new Error(`rejected with a non-error: ${String(error)}`);
  }
  throw new Error("expected a rejection");
}

describe("ReAct run lifecycle", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });

  afterAll(async () => {
    await table?.stop();
  });

  it("names the role and call of a fatal model error in reason, and RecordFailure marks the goal failed with that role", async () => {
    // Prepare
    const goal = await createGoal(table);
    const model = new ScriptedModel({ reason: [failsWith("AccessDeniedException")] });
    const loop = new ReactLoopDriver(table, model);
    const loaded = await loop.load(goal.goalId);

    // Act
    const error = await rejection(loop.verifyAndReason(loaded));
    const ports = { goals: table.adapters.goals, now: steppingClock() };
    const first = await recordFailure(ports, FATAL, { ...loaded, error: caught(error) });
    const again = await recordFailure(ports, FATAL, { ...loaded, error: caught(error) });

    // Assess
    expect(error.name).toBe("AccessDeniedException");
    expect(error.message).toMatch(/^role=reason call=0: /);
    expect(first.recorded).toBe(true);
    expect(again.recorded).toBe(false);
    const failed = await loop.goal(goal.goalId);
    expect(failed.status).toBe("failed");
    expect(failed.stopReason).toMatchObject({
      kind: "fatal_error",
      detail: "AccessDeniedException",
      role: "reason",
      message: expect.stringContaining("role=reason call=0: "),
    });
    const failedEvents = (await loop.events(goal.goalId)).filter((event) => event.type === "goal.failed");
    expect(failedEvents).toHaveLength(1);
    expect(failed.usage.modelCalls).toBe(0);
  });

  it("keeps a retryable model error's name for the state machine's Retry and pays nothing", async () => {
    // Prepare
    const goal = await createGoal(table);
    const model = new ScriptedModel({
      reason: [failsWith("ThrottlingException", true), writes("out/haiku.md", "autumn")],
    });
    const loop = new ReactLoopDriver(table, model);
    const loaded = await loop.load(goal.goalId);

    // Act
    const error = await rejection(loop.verifyAndReason(loaded));
    const retried = await loop.verifyAndReason(loaded);

    // Assess
    expect(error).toMatchObject({ name: "ThrottlingException", retryable: true });
    expect(error.message).toMatch(/^role=reason call=0: /);
    expect(retried).toMatchObject({ iteration: loaded.iteration + 1, next: "verify" });
    expect(model.requests.map((request) => request.call)).toEqual([0, 0]);
    expect((await loop.goal(goal.goalId)).usage.modelCalls).toBe(1);
  });

  it("marks an infrastructure failure without a role, and leaves a completed goal alone", async () => {
    // Prepare
    const running = await createGoal(table);
    const completed = await createGoal(table);
    const loop = new ReactLoopDriver(
      table,
      new ScriptedModel({ reason: [writes("out/haiku.md", "autumn")] }),
    );
    await loop.run(completed.goalId);
    const ports = { goals: table.adapters.goals, now: steppingClock() };
    const timeout = { Error: "States.Timeout", Cause: "Task timed out after 360.00 seconds" };

    // Act
    const onRunning = await recordFailure(ports, FATAL, {
      goalId: running.goalId,
      runId: "r1",
      error: timeout,
    });
    const onCompleted = await recordFailure(ports, FATAL, {
      goalId: completed.goalId,
      runId: "r1",
      error: timeout,
    });

    // Assess
    expect(onRunning.recorded).toBe(true);
    const failed = await loop.goal(running.goalId);
    expect(failed.stopReason).toEqual({
      kind: "infrastructure",
      detail: "States.Timeout",
      message: "Task timed out after 360.00 seconds",
      at: expect.any(String),
    });
    expect(onCompleted.recorded).toBe(false);
    expect((await loop.goal(completed.goalId)).status).toBe("completed");
  });

  it("continues as new after N iterations: a new run id, runIteration reset, steps, usage and event seq kept", async () => {
    // Prepare
    const goal = await createGoal(table);
    const model = new ScriptedModel({
      reason: [writes("a.md", "one"), writes("b.md", "two"), writes("out/haiku.md", "autumn")],
    });
    const loop = new ReactLoopDriver(table, model, { ...SETTINGS, continueAsNewAfter: 2 });
    const firstRun = await loop.run(goal.goalId, "r1");
    const before = await loop.goal(goal.goalId);

    // Act
    const newRun = await loop.continueAsNew(
      firstRun.at(-1) ?? { goalId: goal.goalId, runId: "r1", iteration: 0, next: "stop" },
    );
    const retried = await loop.continueAsNew({
      goalId: goal.goalId,
      runId: "r1",
      iteration: 2,
      next: "continue_as_new",
    });
    const handedOver = await loop.goal(goal.goalId);
    const oldRunAnswer = await loop.verifyAndReason({
      goalId: goal.goalId,
      runId: "r1",
      iteration: 2,
      next: "verify",
    });
    const secondRun = await loop.run(goal.goalId, "r2");

    // Assess
    expect(firstRun.at(-1)).toMatchObject({ next: "continue_as_new", iteration: 2 });
    expect(newRun).toEqual({ goalId: goal.goalId, runId: "r2", executionName: `${goal.goalId}-r2` });
    expect(retried).toEqual(newRun);
    expect(handedOver).toMatchObject({ runId: "r2", previousRunId: "r1", runIteration: 0, steps: 2 });
    expect(handedOver.usage).toEqual(before.usage);
    expect(handedOver.lastEventSeq).toBe(before.lastEventSeq + 1);
    expect(oldRunAnswer.next).toBe("stop");
    expect(secondRun.at(-1)?.next).toBe("completed");
    expect(model.requestsFor("reason").map((request) => request.call)).toEqual([0, 1, 2]);
    const events = await loop.events(goal.goalId);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.filter((event) => event.type === "run.started").map((event) => event.runId)).toEqual([
      "r1",
      "r2",
    ]);
    expect(events.filter((event) => event.type === "run.continued")).toHaveLength(1);
    const done = await loop.goal(goal.goalId);
    expect(done).toMatchObject({ status: "completed", steps: 3, runIteration: 1 });
    expect(done.usage.modelCalls).toBe(3);
  });

  it("asks for a limit decision in LoadGoal when a limit is already reached, and answers stop to another run", async () => {
    // Prepare
    const goal = await createGoal(table, reactSpec({ limits: { deadline: "2026-01-01T00:00:00.000Z" } }));
    const model = new ScriptedModel({});
    const loop = new ReactLoopDriver(table, model);

    // Act
    const otherRun = await loop.load(goal.goalId, "r7");
    const loaded = await loop.load(goal.goalId);
    const reloaded = await loop.load(goal.goalId);

    // Assess
    expect(otherRun.next).toBe("stop");
    expect(loaded.next).toBe("limit_decision");
    expect(reloaded.next).toBe("limit_decision");
    expect((await loop.goal(goal.goalId)).status).toBe("running");
    expect(model.requests).toEqual([]);
  });
});
