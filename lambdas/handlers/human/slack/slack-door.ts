import { randomBytes } from "node:crypto";
import { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import { getSecret } from "@aws-lambda-powertools/parameters/secrets";
import { EventBridgeClient } from "@aws-sdk/client-eventbridge";
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import middy from "@middy/core";
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import { DynamoDbGoalStore } from "../../../adapters/dynamodb/dynamodb-goal-store";
import { DynamoDbReplayGuard } from "../../../adapters/dynamodb/slack-replay-guard";
import { EventBridgePublisher } from "../../../adapters/eventbridge/eventbridge-publisher";
import { createDocumentClient, observedGoalStore } from "../../../adapters/goal-store-adapters";
import { datedSecretVersionReader } from "../../../adapters/secrets/read-secret-version";
import {
  previousSlackSigningSecretSource,
  slackSecretsFromEnv,
} from "../../../adapters/secrets/slack-secrets";
import { fetchSlackResponder } from "../../../adapters/slack/slack-responder";
import { revisionIdFromBytes } from "../../../core/goal/goal-ids";
import { listEnv, requiredEnv } from "../../handler-environment";
import { createSlackDoor } from "./create-slack-door";
import { slackChannelTenantsFromEnv } from "./slack-channel-tenants-env";

/**
 * The Slack door (`POST /slack/interactions`, `POST /slack/commands`), a function of its own
 * because its routes have no IAM auth: Slack's request signature is the credential. It decides
 * approvals, publishes human inputs and remembers the signatures it handled, for the configured
 * approvers only and within one tenant; nothing else.
 * Clients are built once per container.
 */
const logger = new Logger();
const client = createDocumentClient();
const tableName = requiredEnv("GOAL_TABLE_NAME");
// Always bound to a tenant: the construct sets the configured one or the deploying account.
const tenantId = requiredEnv("SLACK_TENANT_ID");
// Channels with a tenant of their own (approvals.slack.channelTenants); unset means none.
const channelTenants = slackChannelTenantsFromEnv(process.env);
// Unset means nobody: every click and command is refused until the deployer lists approvers.
const approverUserIds = new Set(listEnv("SLACK_APPROVER_USER_IDS"));
// Locally (NOTIFY_DELIVERY=outbox) there is no Slack to post back to: the answer's body is the update.
const postsToSlack = process.env.NOTIFY_DELIVERY !== "outbox";

const door = createSlackDoor({
  goals: observedGoalStore(new DynamoDbGoalStore({ client, tableName })),
  publisher: new EventBridgePublisher(
    new EventBridgeClient({ region: process.env.AWS_REGION }),
    requiredEnv("GOAL_EVENT_BUS_NAME"),
  ),
  replayGuard: new DynamoDbReplayGuard(client, tableName),
  // Every request is verified with the signing secret: Secrets Manager is loaded at init, not deferred.
  signingSecret: slackSecretsFromEnv(process.env, getSecret).signingSecret,
  // Clicks signed before the last rotation still verify for a window (docs/operations.md, rotation).
  previousSigningSecret: previousSlackSigningSecretSource(
    process.env,
    datedSecretVersionReader(new SecretsManagerClient({ region: process.env.AWS_REGION })),
  ),
  // A second at most, so the click is acknowledged within Slack's 3 seconds even when Slack is slow.
  ...(postsToSlack ? { responder: fetchSlackResponder({ timeoutMs: 1000 }) } : {}),
  tenantId,
  channelTenants,
  approverUserIds,
  now: () => new Date(),
  newRevisionId: () => revisionIdFromBytes(randomBytes(12)),
  logger,
});

export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
  .use(injectLambdaContext(logger))
  .handler((event) => door(event));
