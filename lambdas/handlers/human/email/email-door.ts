import { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import { getSecret } from "@aws-lambda-powertools/parameters/secrets";
import { EventBridgeClient } from "@aws-sdk/client-eventbridge";
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import middy from "@middy/core";
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import { DynamoDbGoalStore } from "../../../adapters/dynamodb/dynamodb-goal-store";
import { EventBridgePublisher } from "../../../adapters/eventbridge/eventbridge-publisher";
import { createDocumentClient, observedGoalStore } from "../../../adapters/goal-store-adapters";
import {
  emailLinkSecretSource,
  previousEmailLinkSecretSource,
} from "../../../adapters/secrets/email-secrets";
import { secretVersionReader } from "../../../adapters/secrets/read-secret-version";
import { emailApprovers } from "../../../core/human/email/email-approvers";
import { listEnv, requiredEnv } from "../../handler-environment";
import { createEmailDoor } from "./create-email-door";

/**
 * The email door (`GET`/`POST /email/approvals/{approvalId}`), a function of its own because its
 * routes have no IAM auth: the link's HMAC is the credential, for a configured approver address
 * only. It reads and decides approvals and publishes `Approval Decided`; nothing else. Clients are built once per container.
 */
const logger = new Logger();

const door = createEmailDoor({
  goals: observedGoalStore(
    new DynamoDbGoalStore({ client: createDocumentClient(), tableName: requiredEnv("GOAL_TABLE_NAME") }),
  ),
  publisher: new EventBridgePublisher(
    new EventBridgeClient({ region: process.env.AWS_REGION }),
    requiredEnv("GOAL_EVENT_BUS_NAME"),
  ),
  // Every request verifies a link with the key: Secrets Manager is loaded at init, not deferred.
  secret: emailLinkSecretSource(process.env, getSecret),
  // Links signed before the last rotation of the key still verify (docs/deploy.md, rotating the key).
  previousSecret: previousEmailLinkSecretSource(
    process.env,
    secretVersionReader(new SecretsManagerClient({ region: process.env.AWS_REGION })),
  ),
  // Unset means nobody: every link is refused until the deployer lists approvers.
  approvers: emailApprovers(listEnv("EMAIL_APPROVERS")),
  now: () => new Date(),
  logger,
});

export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
  .use(injectLambdaContext(logger))
  .handler((event) => door(event));
