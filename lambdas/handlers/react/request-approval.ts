import { randomBytes } from "node:crypto";
import { Logger } from "@aws-lambda-powertools/logger";
import { SFNClient } from "@aws-sdk/client-sfn";
import { createDocumentClient, createGoalStoreAdapters } from "../../adapters/goal-store-adapters";
import { sfnTaskCallback } from "../../adapters/sfn-task-callback";
import { requestApproval } from "../../core/react/request-approval";
import { positiveIntEnv, requiredEnv } from "../handler-environment";
import { stepHandler } from "../step-handler";
import { RequestApprovalPayloadSchema } from "./state-payload";

/** Matches the construct's default `approvalTimeout` (24 h): the approval expires with the wait. */
const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 86_400;

const logger = new Logger();
const { goals, outbox } = createGoalStoreAdapters({
  client: createDocumentClient(),
  tableName: requiredEnv("GOAL_TABLE_NAME"),
});
// No explicit endpoint: the SDK honours AWS_ENDPOINT_URL_SFN (the local runtime's Step Functions).
const callback = sfnTaskCallback(new SFNClient({ region: process.env.AWS_REGION }));
const settings = {
  approvalTimeoutSeconds: positiveIntEnv("APPROVAL_TIMEOUT_SECONDS", DEFAULT_APPROVAL_TIMEOUT_SECONDS),
};

/** 128 random bits: an approval id cannot be guessed, and says nothing about the token. */
const newApprovalId = () => `ap-${randomBytes(16).toString("hex")}`;

/**
 * AwaitApproval's Lambda (`.waitForTaskToken`): store the approval with the token and park the goal
 * (see `requestApproval`). The answer is logged and returned without the token; the execution's
 * output comes from SendTaskSuccess, not from here.
 */
export const handler = stepHandler(logger, RequestApprovalPayloadSchema, (payload) =>
  requestApproval({ goals, outbox, callback, now: () => new Date(), newApprovalId }, settings, payload),
);
