import { randomUUID } from "node:crypto";
import {
  DescribeStateMachineAliasCommand,
  DescribeStateMachineCommand,
  SFNClient,
  StartExecutionCommand,
} from "@aws-sdk/client-sfn";
import type { Context } from "aws-lambda";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GOAL_ID_PATTERN } from "../../../lambdas/core/goal/goal-ids";
import { versionDescription } from "../../../lambdas/core/goal/runs-on";
import { createGoalTable } from "../../../lib/local/storage/create-goal-table";
import { type DynamoBackend, dynamoClientFor, startDynalite } from "../../support/dynamo-backends";
import { aGoalSpec, apiEvent, bodyOf, REACT_ARN } from "./api-harness";

function lambdaContext(): Context {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: "goals-api",
    functionVersion: "$LATEST",
    invokedFunctionArn: "arn:aws:lambda:us-east-1:123456789012:function:goals-api",
    memoryLimitInMB: "256",
    awsRequestId: "lambda-request",
    logGroupName: "/aws/lambda/goals-api",
    logStreamName: "stream",
    getRemainingTimeInMillis: () => 10_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** The deployed entry point, wired from its environment alone, as Lambda and the local runtime load it. */
describe("goals-api handler (module-scope wiring)", () => {
  const tableName = `goals-${randomUUID()}`;
  const sfn = mockClient(SFNClient);
  let backend: DynamoBackend;

  beforeAll(async () => {
    backend = await startDynalite();
    const client = dynamoClientFor(backend.endpoint);
    await createGoalTable(client, tableName);
    client.destroy();
    // Each test file runs in its own process (pool: forks), so this environment stays here.
    Object.assign(process.env, {
      GOAL_TABLE_NAME: tableName,
      STATE_MACHINE_ARNS: JSON.stringify({ react: REACT_ARN }),
      GOAL_EVENT_BUS_NAME: "goal-bus",
      AWS_ENDPOINT_URL_DYNAMODB: backend.endpoint,
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "local",
      AWS_SECRET_ACCESS_KEY: "local",
      POWERTOOLS_LOG_LEVEL: "SILENT",
      // The handlers publish goal metrics as EMF lines on stdout: none in unit tests.
      POWERTOOLS_METRICS_DISABLED: "true",
    });
  });

  afterAll(async () => {
    sfn.restore();
    await backend.stop();
  });

  it("serves POST /goals and GET /goals/{goalId} through middy", async () => {
    // Prepare
    const { handler } = await import("../../../lambdas/handlers/api/goals-api");
    const context = lambdaContext();
    // The deploy: react's live alias names version 3, described with the deploy's label.
    sfn
      .on(DescribeStateMachineAliasCommand, { stateMachineAliasArn: `${REACT_ARN}:live` })
      .resolves({ routingConfiguration: [{ stateMachineVersionArn: `${REACT_ARN}:3`, weight: 100 }] });
    sfn
      .on(DescribeStateMachineCommand, { stateMachineArn: `${REACT_ARN}:3` })
      .resolves({ description: versionDescription("0.1.0-0000abcd", 2) });

    // Act
    const created = await handler(
      apiEvent({ method: "POST", path: "/goals", body: aGoalSpec(), accountId: "local" }),
      context,
    );
    const goalId = String(bodyOf(created).goalId);
    const fetched = await handler(
      apiEvent({ method: "GET", path: `/goals/${goalId}`, accountId: "local" }),
      context,
    );

    // Assess
    expect(created.statusCode).toBe(202);
    expect(goalId).toMatch(GOAL_ID_PATTERN);
    // The goal starts on the version the alias names, and its snapshot says which deploy that is.
    expect(sfn.commandCalls(StartExecutionCommand)[0]?.args[0].input).toMatchObject({
      stateMachineArn: `${REACT_ARN}:3`,
      name: `${goalId}-r1`,
    });
    expect(fetched.statusCode).toBe(200);
    expect(bodyOf(fetched)).toMatchObject({ goalId, status: "running", version: "0.1.0-0000abcd" });
  });
});
