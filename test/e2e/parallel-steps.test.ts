import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allEvents, type E2eStack, followGoal } from "./local-stack-harness";
import { FOUR_FILES, fourIndependentStepsFixture, fourIndependentStepsGoal } from "./parallel-steps-fixture";
import { sharedE2eStack } from "./shared-e2e-stack";

/**
 * Plan-and-Execute runs the ready steps of a plan at once: four independent steps whose execute
 * turns each take a second at the local Bedrock endpoint overlap there. The overlap is read from the
 * endpoint's exchange log (every request received before any answer), never from a clock.
 */
describe("parallel plan steps end to end on the local stack (HTTP API, ExecuteBatch Map)", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await sharedE2eStack();
    e2e.writeFixture("parallel-four", fourIndependentStepsFixture(1000));
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it("sends all four execute calls before the endpoint answers any, and completes on each step's evidence", async () => {
    // Prepare: a first goal of the same shape starts the Execute function's four sandboxes (on a
    // loaded machine a cold start can take longer than a turn's latency); the second is observed.
    const warmUp = await e2e.client.submitGoal(fourIndependentStepsGoal("parallel-four"));
    expect((await followGoal(e2e.client, warmUp.goalId)).final.status).toBe("completed");

    // Act
    const accepted = await e2e.client.submitGoal(fourIndependentStepsGoal("parallel-four"));
    const { final } = await followGoal(e2e.client, accepted.goalId);
    const { goalId } = accepted;

    // Assess: the goal completed on all four files
    expect(final.status).toBe("completed");
    expect([...final.satisfiedChecks].sort()).toEqual(FOUR_FILES.map((id) => `file-${id}`));

    // Assess: the four execute requests were all received before the first answer went out
    const execute = e2e.stack.bedrock
      .exchanges()
      .filter((entry) => entry.goalId === goalId && entry.role === "execute");
    expect(execute).toHaveLength(8);
    expect(execute.slice(0, 4).map((entry) => entry.event)).toEqual(Array(4).fill("received"));
    expect(
      execute
        .slice(0, 4)
        .map((entry) => entry.call)
        .sort(),
    ).toEqual([0, 1, 2, 3]);

    // Assess: each call was made and paid once, and counted once
    for (const call of [0, 1, 2, 3]) {
      expect(e2e.stack.bedrock.callCount({ goalId, role: "execute", call })).toBe(1);
    }
    expect(final.usage.modelCalls).toBe(5);
    expect(final.usageByRole.execute?.modelCalls).toBe(4);

    // Assess: one batch, each step started, acted on and observed on its own
    const events = await allEvents(e2e.client, goalId);
    expect(events.filter((event) => event.type === "plan.batch.started")).toHaveLength(1);
    const started = events.filter((event) => event.type === "plan.step.started");
    expect(started.map((event) => event.stepId).sort()).toEqual(FOUR_FILES.map((id) => `write-${id}`));
    expect(final.steps).toBe(4);

    // Assess: the run's history shows the Map and its four iterations
    const execution = e2e.stack.executions
      .list()
      .find((candidate) => JSON.stringify(candidate.input).includes(goalId));
    const history = execution?.recentEvents ?? [];
    expect(history.filter((event) => event.type === "MapIterationSucceeded")).toHaveLength(4);
  });
});
