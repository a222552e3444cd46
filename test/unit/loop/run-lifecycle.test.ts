import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FATAL_MODEL_ERRORS } from "../../../lambdas/adapters/bedrock/bedrock-errors";
import { retry } from "../../../lambdas/core/goal/goal-lifecycle";
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
  TEST_STATE_MACHINE_ARN,
  writes,
} from "./support";

const FATAL = {
  fatalErrorNames: new Set<string>([...FATAL_MODEL_ERRORS, "ValidationError"]),
  terminatingErrorNames: new Set<string>(FATAL_MODEL_ERRORS),
};

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

  it("names the role and call of a fatal model error in reason, and RecordFailure terminates the goal with that role", async () => {
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
    expect(first.outcome).toBe("terminated");
    expect(again.outcome).toBe("ignored");
    const failed = await loop.goal(goal.goalId);
    expect(failed.status).toBe("terminated");
    expect(failed.stopReason).toMatchObject({
      kind: "fatal_error",
      detail: "AccessDeniedException",
      role: "reason",
      message: expect.stringContaining("role=reason call=0: "),
    });
    const types = (await loop.events(goal.goalId)).map((event) => event.type);
    expect(types.filter((type) => type === "goal.terminated")).toHaveLength(1);
    expect(types).not.toContain("goal.failed");
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
    expect(onRunning.outcome).toBe("failed");
    const failed = await loop.goal(running.goalId);
    expect(failed.stopReason).toEqual({
      kind: "infrastructure",
      detail: "States.Timeout",
      message: "Task timed out after 360.00 seconds",
      at: expect.any(String),
    });
    expect(onCompleted.outcome).toBe("ignored");
    expect((await loop.goal(completed.goalId)).status).toBe("completed");
  });

  it("hands a redriven run back to the loop once, then records its next failure again", async () => {
    // Prepare: the run failed; a human retries it by redriving the same execution
    const goal = await createGoal(table);
    const loop = new ReactLoopDriver(table, new ScriptedModel({ reason: [] }));
    const ports = { goals: table.adapters.goals, now: steppingClock() };
    const throttled = { Error: "ThrottlingException", Cause: "Rate exceeded" };
    const failure = { goalId: goal.goalId, runId: "r1", iteration: 0, error: throttled };
    const failed = await recordFailure(ports, FATAL, failure);
    const stored = await table.adapters.goals.getGoal(goal.goalId);
    if (!stored) throw new Error("goal vanished");
    const retried = retry(stored.record, { now: new Date(), by: "ana" });
    await table.adapters.goals.commit(retried.record, stored.version, retried.events);

    // Act: the redrive runs RecordFailure again with the same input, and later the run fails again
    const redriven = await recordFailure(ports, FATAL, failure);
    const failedAgain = await recordFailure(ports, FATAL, failure);

    // Assess
    expect(failed.outcome).toBe("failed");
    expect(retried.record).toMatchObject({ status: "running", runId: "r1", redriving: "r1" });
    expect(redriven).toEqual({
      outcome: "redriven",
      next: { goalId: goal.goalId, runId: "r1", iteration: 0, next: "verify" },
    });
    expect(failedAgain.outcome).toBe("failed");
    const types = (await loop.events(goal.goalId)).map((event) => event.type);
    expect(types.filter((type) => type === "goal.failed")).toHaveLength(2);
    expect(types).toContain("goal.retried");
    expect(types).toContain("run.redriven");
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
    // A goal created without runsOn (as before versions) continues on the live alias.
    expect(newRun).toEqual({
      goalId: goal.goalId,
      runId: "r2",
      executionName: `${goal.goalId}-r2`,
      stateMachineArn: `${TEST_STATE_MACHINE_ARN}:live`,
    });
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
