import { randomBytes, randomUUID } from "node:crypto";
import { SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import type { Context } from "aws-lambda";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGoalTable } from "../../../lambdas/adapters/create-goal-table";
import {
  createGoalStoreAdapters,
  type GoalStoreAdapters,
} from "../../../lambdas/adapters/goal-store-adapters";
import { createGoalRecord } from "../../../lambdas/core/create-goal";
import { goalIdFromBytes } from "../../../lambdas/core/goal-ids";
import { parseGoalSpec } from "../../../lambdas/core/goal-spec";
import {
  type DynamoBackend,
  documentClientFor,
  dynamoClientFor,
  startDynalite,
} from "../../support/dynamo-backends";
import { reactSpec, T0 } from "./support";

const STATE_MACHINE_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:goal-loops-react";

/** Enough of a Lambda context for middy and the Powertools logger. */
const context: Context = {
  callbackWaitsForEmptyEventLoop: false,
  functionName: "react-step",
  functionVersion: "$LATEST",
  invokedFunctionArn: "arn:aws:lambda:us-east-1:123456789012:function:react-step",
  memoryLimitInMB: "512",
  awsRequestId: "request-1",
  logGroupName: "/aws/lambda/react-step",
  logStreamName: "stream",
  getRemainingTimeInMillis: () => 60_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
};

/**
 * The handlers as Lambda loads them: module-scope clients from the environment (the DynamoDB
 * endpoint through AWS_ENDPOINT_URL_DYNAMODB, as in the local runtime), the state payload parsed.
 */
describe("ReAct step handlers", () => {
  let backend: DynamoBackend;
  let adapters: GoalStoreAdapters;
  const sfn = mockClient(SFNClient);

  beforeAll(async () => {
    backend = await startDynalite();
    const client = dynamoClientFor(backend.endpoint);
    const tableName = `goals-${randomUUID()}`;
    await createGoalTable(client, tableName);
    adapters = createGoalStoreAdapters({ client: documentClientFor(client), tableName });
    Object.assign(process.env, {
      GOAL_TABLE_NAME: tableName,
      AWS_ENDPOINT_URL_DYNAMODB: backend.endpoint,
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "local",
      AWS_SECRET_ACCESS_KEY: "local",
      DEFAULT_MODEL_ID: "scripted:unused",
      POWERTOOLS_LOG_LEVEL: "SILENT",
    });
  });

  afterAll(async () => {
    sfn.restore();
    await backend?.stop();
  });

  async function aGoal() {
    const { record, events } = createGoalRecord({
      spec: parseGoalSpec(reactSpec()),
      goalId: goalIdFromBytes(randomBytes(16)),
      tenantId: "tenant-1",
      runId: "r1",
      now: T0,
      pattern: "react",
      patternReason: "requested",
    });
    return (await adapters.goals.createGoal(record, events)).record;
  }

  it("LoadGoal answers verify for the execution input {goalId, runId}", async () => {
    // Prepare
    const goal = await aGoal();
    const { handler } = await import("../../../lambdas/handlers/react/load-goal");

    // Act
    const answer = await handler({ goalId: goal.goalId, runId: "r1" }, context);

    // Assess
    expect(answer).toEqual({ goalId: goal.goalId, runId: "r1", iteration: 0, next: "verify" });
    const stored = await adapters.goals.getGoal(goal.goalId);
    expect(stored?.record.loop).toEqual({ runId: "r1", iteration: 0, phase: "started" });
  });

  it("rejects a payload without a goal id as a ValidationError", async () => {
    // Prepare
    const { handler } = await import("../../../lambdas/handlers/react/act");

    // Act
    const attempt = handler({ runId: "r1", iteration: 0 }, context);

    // Assess
    await expect(attempt).rejects.toMatchObject({ name: "ValidationError" });
  });

  it("ContinueAsNew hands the goal to run r2 and starts its execution, even when an earlier attempt did", async () => {
    // Prepare
    const goal = await aGoal();
    sfn
      .on(StartExecutionCommand)
      .rejectsOnce(Object.assign(new Error("taken"), { name: "ExecutionAlreadyExists" }));
    const { handler } = await import("../../../lambdas/handlers/react/continue-as-new");
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
        stateMachineArn: STATE_MACHINE_ARN,
        name: `${goal.goalId}-r2`,
        input: JSON.stringify({ goalId: goal.goalId, runId: "r2" }),
      },
    ]);
    expect((await adapters.goals.getGoal(goal.goalId))?.record).toMatchObject({
      runId: "r2",
      previousRunId: "r1",
    });
  });

  it("RecordFailure marks the goal failed from the Catch's $.error", async () => {
    // Prepare
    const goal = await aGoal();
    const { handler } = await import("../../../lambdas/handlers/record-failure");
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
    expect(answer).toEqual({ recorded: true });
    expect((await adapters.goals.getGoal(goal.goalId))?.record.stopReason).toMatchObject({
      kind: "fatal_error",
      detail: "ValidationException",
      role: "reason",
    });
  });
});
