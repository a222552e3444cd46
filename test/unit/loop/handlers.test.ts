import { SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGoal, type GoalTable, lambdaContext, startHandlerEnvironment } from "./support";

const STATE_MACHINE_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:goal-loops-react";

const context = lambdaContext("react-step", "512");

/**
 * The handlers as Lambda loads them: module-scope clients from the environment (the DynamoDB
 * endpoint through AWS_ENDPOINT_URL_DYNAMODB, as in the local runtime), the state payload parsed.
 */
describe("ReAct step handlers", () => {
  let table: GoalTable;
  const sfn = mockClient(SFNClient);

  beforeAll(async () => {
    table = await startHandlerEnvironment();
  });

  afterAll(async () => {
    sfn.restore();
    await table?.stop();
  });

  it("LoadGoal answers verify for the execution input {goalId, runId}", async () => {
    // Prepare
    const goal = await createGoal(table);
    const { handler } = await import("../../../lambdas/handlers/loop/load-goal");

    // Act
    const answer = await handler({ goalId: goal.goalId, runId: "r1" }, context);

    // Assess
    expect(answer).toEqual({ goalId: goal.goalId, runId: "r1", iteration: 0, next: "verify" });
    const stored = await table.adapters.goals.getGoal(goal.goalId);
    expect(stored?.record.loop).toEqual({ runId: "r1", iteration: 0, phase: "started" });
  });

  it("rejects a payload without a goal id as a ValidationError", async () => {
    // Prepare
    const { handler } = await import("../../../lambdas/handlers/loop/act");

    // Act
    const attempt = handler({ runId: "r1", iteration: 0 }, context);

    // Assess
    await expect(attempt).rejects.toMatchObject({ name: "ValidationError" });
  });

  it("ContinueAsNew hands the goal to run r2 and starts its execution, even when an earlier attempt did", async () => {
    // Prepare
    const goal = await createGoal(table);
    sfn
      .on(StartExecutionCommand)
      .rejectsOnce(Object.assign(new Error("taken"), { name: "ExecutionAlreadyExists" }));
    const { handler } = await import("../../../lambdas/handlers/loop/continue-as-new");
    const payload = {
      goalId: goal.goalId,
      runId: "r1",
      iteration: 50,
      next: "continue_as_new",
      stateMachineArn: STATE_MACHINE_ARN,
    };

    // Act
    const answer = await handler(payload, context);

    // Assess
    expect(answer).toEqual({ goalId: goal.goalId, runId: "r2", iteration: 0, next: "continued" });
    expect(sfn.commandCalls(StartExecutionCommand).map((call) => call.args[0].input)).toEqual([
      {
        // A goal created without runsOn (as before versions) continues on the live alias.
        stateMachineArn: `${STATE_MACHINE_ARN}:live`,
        name: `${goal.goalId}-r2`,
        input: JSON.stringify({ goalId: goal.goalId, runId: "r2" }),
      },
    ]);
    expect((await table.adapters.goals.getGoal(goal.goalId))?.record).toMatchObject({
      runId: "r2",
      previousRunId: "r1",
    });
  });

  it("RecordFailure terminates the goal on a fatal model error from the Catch's $.error, and ends the run", async () => {
    // Prepare
    const goal = await createGoal(table);
    const { handler } = await import("../../../lambdas/handlers/loop/record-failure");
    const error = {
      Error: "ValidationException",
      Cause: JSON.stringify({
        errorType: "ValidationException",
        errorMessage: "role=reason call=0: bad request",
      }),
    };

    // Act
    const answer = await handler(
      { goalId: goal.goalId, runId: "r1", iteration: 0, next: "verify", error },
      context,
    );

    // Assess
    expect(answer).toEqual({ goalId: goal.goalId, runId: "r1", iteration: 0, next: "terminated" });
    const stored = (await table.adapters.goals.getGoal(goal.goalId))?.record;
    expect(stored?.status).toBe("terminated");
    expect(stored?.stopReason).toMatchObject({
      kind: "fatal_error",
      detail: "ValidationException",
      role: "reason",
    });
  });

  it("RecordFailure marks the goal failed on an infrastructure error and fails the execution with GoalFailed", async () => {
    // Prepare
    const goal = await createGoal(table);
    const { handler } = await import("../../../lambdas/handlers/loop/record-failure");
    const error = {
      Error: "ThrottlingException",
      Cause: JSON.stringify({ errorMessage: "role=reason call=0: slow down" }),
    };

    // Act
    const attempt = handler(
      { goalId: goal.goalId, runId: "r1", iteration: 0, next: "verify", error },
      context,
    );

    // Assess
    await expect(attempt).rejects.toMatchObject({
      name: "GoalFailed",
      message: "ThrottlingException: role=reason call=0: slow down",
    });
    expect((await table.adapters.goals.getGoal(goal.goalId))?.record).toMatchObject({
      status: "failed",
      stopReason: { kind: "infrastructure", detail: "ThrottlingException", role: "reason" },
    });
  });
});
