import { randomBytes, randomInt, randomUUID } from "node:crypto";
import { Logger } from "@aws-lambda-powertools/logger";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DescribeExecutionCommand, GetExecutionHistoryCommand, SFNClient } from "@aws-sdk/client-sfn";
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeAll } from "vitest";
import { DynamoDbGoalStore } from "../../../lambdas/adapters/dynamodb/dynamodb-goal-store";
import { sfnRunHistory } from "../../../lambdas/adapters/step-functions/sfn-run-history";
import { sfnRunStarter } from "../../../lambdas/adapters/step-functions/sfn-run-starter";
import { goalIdFromBytes } from "../../../lambdas/core/goal/goal-ids";
import type { GoalSpecInput } from "../../../lambdas/core/goal/goal-spec";
import { createGoalsApi, type GoalsApi } from "../../../lambdas/handlers/api/create-goals-api";
import type { GoalsApiDeps } from "../../../lambdas/handlers/api/goals-api-deps";
import { createGoalTable } from "../../../lib/local/storage/create-goal-table";
import {
  type DynamoBackend,
  documentClientFor,
  dynamoClientFor,
  startDynalite,
} from "../../support/dynamo-backends";
import { RecordingPublisher } from "../human/support";

export const NOW = new Date("2026-03-01T12:00:00.000Z");
export const REACT_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:goal-loops-react";

/** dynalite with a fresh goal table, and the real store on it. */
export interface StoreBackend {
  readonly store: DynamoDbGoalStore;
  stop(): Promise<void>;
}

export async function startStoreBackend(): Promise<StoreBackend> {
  const backend: DynamoBackend = await startDynalite();
  const client: DynamoDBClient = dynamoClientFor(backend.endpoint);
  const tableName = `goals-${randomUUID()}`;
  await createGoalTable(client, tableName);
  const store = new DynamoDbGoalStore({ client: documentClientFor(client), tableName });
  return {
    store,
    async stop() {
      client.destroy();
      await backend.stop();
    },
  };
}

/** A store backend started before the enclosing suite's tests and stopped after them. */
export function suiteStoreBackend(): StoreBackend {
  let started: StoreBackend | undefined;
  const current = (): StoreBackend => {
    if (!started) throw new Error("the suite's store backend starts in beforeAll");
    return started;
  };
  beforeAll(async () => {
    started = await startStoreBackend();
  });
  afterAll(async () => {
    await started?.stop();
  });
  return {
    get store() {
      return current().store;
    },
    stop: () => current().stop(),
  };
}

/** The API over the real store, a mocked SFNClient, a fixed clock and a silent logger. */
export function buildApi(store: DynamoDbGoalStore, overrides: Partial<GoalsApiDeps> = {}) {
  const sfnClient = new SFNClient({
    region: "us-east-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  });
  const sfn = mockClient(sfnClient);
  // Runs read by the console's routes: one running execution with an empty history, unless a test says otherwise.
  sfn.on(DescribeExecutionCommand).resolves({ status: "RUNNING", startDate: new Date(NOW) });
  sfn.on(GetExecutionHistoryCommand).resolves({ events: [] });
  const logger = new Logger({ serviceName: "goals-api-test", logLevel: "SILENT" });
  const publisher = new RecordingPublisher();
  const deps: GoalsApiDeps = {
    store,
    startRun: sfnRunStarter(sfnClient),
    runHistory: sfnRunHistory(sfnClient),
    stateMachineArns: { react: REACT_ARN },
    now: () => NOW,
    newGoalId: () => goalIdFromBytes(randomBytes(16)),
    publisher,
    newRevisionId: () => `rev-${randomUUID()}`,
    logger,
    ...overrides,
  };
  const api: GoalsApi = createGoalsApi(deps);
  return { api, sfn, logger, publisher };
}

/** A tenant of its own per test, so listings in the shared table never see another test's goals. */
export function aTenant(): string {
  return String(randomInt(100_000_000_000, 999_999_999_999));
}

export function aGoalSpec(overrides: Partial<GoalSpecInput> = {}): GoalSpecInput {
  return {
    objective: "Write a haiku about DynamoDB to haiku.txt",
    successChecks: [
      {
        id: "haiku-written",
        description: "haiku.txt exists and mentions DynamoDB",
        verify: { kind: "artifact", path: "haiku.txt", contains: "DynamoDB" },
      },
    ],
    pattern: "react",
    ...overrides,
  };
}

export interface EventOptions {
  readonly method: string;
  readonly path: string;
  /** An object is sent as JSON; a string is sent as it is. */
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  readonly query?: Record<string, string>;
  /** The caller's account id; null leaves the identity out. */
  readonly accountId: string | null;
  /** The signing principal's ARN. @default arn:aws:iam::<accountId>:user/tester */
  readonly userArn?: string;
  /** What a Lambda authorizer put in the request context (a JWT caller), instead of an IAM identity. */
  readonly authorizer?: Record<string, string>;
}

/** A REST (v1) proxy event as API Gateway or the local runtime builds it. */
export function apiEvent(options: EventOptions): APIGatewayProxyEvent {
  const body =
    options.body === undefined
      ? null
      : typeof options.body === "string"
        ? options.body
        : JSON.stringify(options.body);
  return {
    httpMethod: options.method,
    path: options.path,
    resource: "/{proxy+}",
    pathParameters: null,
    stageVariables: null,
    headers: options.headers ?? {},
    multiValueHeaders: {},
    queryStringParameters: options.query ?? null,
    multiValueQueryStringParameters: null,
    body,
    isBase64Encoded: false,
    requestContext: {
      accountId: "123456789012",
      apiId: "api",
      authorizer: options.authorizer ?? null,
      protocol: "HTTP/1.1",
      httpMethod: options.method,
      path: `/prod${options.path}`,
      stage: "prod",
      requestId: `req-${randomUUID()}`,
      requestTimeEpoch: NOW.getTime(),
      resourceId: "res",
      resourcePath: "/{proxy+}",
      identity: {
        accessKey: null,
        accountId: options.accountId,
        apiKey: null,
        apiKeyId: null,
        caller: options.accountId === null ? null : `AROAEXAMPLE:${options.accountId}`,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: "127.0.0.1",
        user: null,
        userAgent: "vitest",
        userArn:
          options.userArn ??
          (options.accountId === null ? null : `arn:aws:iam::${options.accountId}:user/tester`),
      },
    },
  };
}

/** The answer's JSON body, for assertions. */
export function bodyOf(result: APIGatewayProxyResult): Record<string, unknown> {
  const parsed: unknown = JSON.parse(result.body);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Error(`expected a JSON object body, got ${result.body}`);
  }
  return parsed as Record<string, unknown>;
}
