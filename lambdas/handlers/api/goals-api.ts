import { randomBytes } from "node:crypto";
import { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import { EventBridgeClient } from "@aws-sdk/client-eventbridge";
import { SFNClient } from "@aws-sdk/client-sfn";
import middy from "@middy/core";
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import { DynamoDbGoalStore } from "../../adapters/dynamodb/dynamodb-goal-store";
import { DynamoDbStepLog } from "../../adapters/dynamodb/dynamodb-step-log";
import { DynamoDbWorkspace } from "../../adapters/dynamodb/dynamodb-workspace";
import { goalEventWaiterFromEnv } from "../../adapters/event-waiters/goal-event-waiter-from-env";
import {
  EventBridgePublisher,
  HumanInputPublishError,
} from "../../adapters/eventbridge/eventbridge-publisher";
import { createDocumentClient, observedGoalStore } from "../../adapters/goal-store-adapters";
import { lazyLambdaInvoker } from "../../adapters/lambda/lazy-lambda-invoker";
import { loadOnce } from "../../adapters/shared/load-once";
import { INLINE_ONLY_FILE_MAX_BYTES, payloadSettingsFromEnv } from "../../adapters/shared/payload-settings";
import { sfnRunHistory } from "../../adapters/step-functions/sfn-run-history";
import { sfnRunStarter } from "../../adapters/step-functions/sfn-run-starter";
import { sfnVersionDirectory } from "../../adapters/step-functions/sfn-version-directory";
import { goalIdFromBytes, revisionIdFromBytes } from "../../core/goal/goal-ids";
import type { DeadlineSchedule } from "../../core/ports/deadline-schedule";
import type { HumanInputPublisher } from "../../core/ports/human-input-publisher";
import type { McpCatalog } from "../../core/ports/mcp-catalog";
import type { ModelClient } from "../../core/ports/model-client";
import { lambdaMcpGateway } from "../../tools/mcp-gateway-client";
import { capacityGovernorFromEnv } from "../loop/capacity-from-env";
import { tenantStoreFromEnv, tenantsSettingsFromEnv } from "../tenants-from-env";
import { readApiConfig } from "./api-config";
import { createGoalsApi } from "./create-goals-api";

/**
 * The goals HTTP API (API Gateway REST proxy, v1 events; the local runtime serves the same bundle).
 * Clients are built once per container; endpoints come from AWS_ENDPOINT_URL_* when run locally.
 */
const logger = new Logger();
const config = readApiConfig(process.env);
const sfn = new SFNClient({ region: process.env.AWS_REGION });
// No explicit endpoint: the SDK honours AWS_ENDPOINT_URL_EVENTBRIDGE (the local runtime's bus).
const eventBridge = new EventBridgeClient({ region: process.env.AWS_REGION });

/**
 * The Bedrock client for the select call, loaded on the first call and then kept: most requests
 * (reads, approvals, steering) never call a model, so their cold starts skip loading the SDK's
 * Bedrock client. A failed load is retried by the next call.
 */
const bedrock = loadOnce(async () => {
  const { createModelClient } = await import("../../adapters/bedrock/bedrock-model-client");
  return createModelClient();
});
const selectModelClient: ModelClient = {
  converse: async (request) => (await bedrock()).converse(request),
};

/**
 * The deadline schedules (EventBridge Scheduler), loaded on the first goal that has a deadline or
 * changes one: most requests never set one, so their cold starts skip loading its SDK client.
 */
const deadlineSchedule = loadOnce(async () =>
  (await import("../../adapters/scheduler/scheduler-deadlines")).deadlineScheduleFromEnv(),
);
const deadlines: DeadlineSchedule = {
  set: async (goalId, deadline) => (await deadlineSchedule())?.set(goalId, deadline),
};

/**
 * The MCP servers' tools, listed by the McpGateway function when a goal grants some: the API never
 * loads the MCP client nor reads a server's secret. Its Lambda client loads on the first such goal.
 */
function mcpCatalog(mcp: { servers: readonly string[]; gatewayFunction: string }): McpCatalog {
  const gateway = lambdaMcpGateway(mcp.gatewayFunction, lazyLambdaInvoker);
  return { servers: mcp.servers, list: (servers) => gateway.list(servers).then((answer) => answer.servers) };
}

/** Deployed without a bus (GoalsApi's optional `goalEventBus`): steering routes answer 503. */
const noBusPublisher: HumanInputPublisher = {
  publish: () => Promise.reject(new HumanInputPublishError("GOAL_EVENT_BUS_NAME is not set: no event bus")),
};

const client = createDocumentClient();
// The step log's history and the workspace serve the steps, fork and replay routes only: the API
// reads a goal's history and copies it into a fork, and never writes to a running goal's own.
const stepLog = new DynamoDbStepLog({ client, tableName: config.tableName });

const api = createGoalsApi({
  store: observedGoalStore(new DynamoDbGoalStore({ client, tableName: config.tableName })),
  history: {
    history: stepLog,
    stepLog,
    workspace: new DynamoDbWorkspace({
      client,
      tableName: config.tableName,
      maxFileBytes: payloadSettingsFromEnv()?.maxBytes ?? INLINE_ONLY_FILE_MAX_BYTES,
    }),
  },
  startRun: sfnRunStarter(sfn),
  stateMachineArns: config.stateMachineArns,
  versions: sfnVersionDirectory(
    sfn,
    config.stateMachineArns,
    config.liveAliasCacheMs === undefined ? {} : { aliasCacheMs: config.liveAliasCacheMs },
  ),
  now: () => new Date(),
  newGoalId: () => goalIdFromBytes(randomBytes(16)),
  publisher:
    config.eventBusName === undefined
      ? noBusPublisher
      : new EventBridgePublisher(eventBridge, config.eventBusName),
  newRevisionId: () => revisionIdFromBytes(randomBytes(12)),
  logger,
  eventWaiter: goalEventWaiterFromEnv(process.env),
  runHistory: sfnRunHistory(sfn),
  deadlines,
  toolNames: config.toolNames,
  tenants: { settings: tenantsSettingsFromEnv(), store: tenantStoreFromEnv(client) },
  ...(config.mcp === undefined ? {} : { mcp: mcpCatalog(config.mcp) }),
  ...(config.models === undefined
    ? {}
    : {
        models: {
          ...config.models,
          // The select call (fast tier) when no selector rule picks the pattern.
          client: selectModelClient,
          capacity: capacityGovernorFromEnv(client, () => new Date()),
        },
      }),
});

export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
  .use(injectLambdaContext(logger))
  .handler((event) => api(event));
