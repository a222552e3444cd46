import { randomBytes } from "node:crypto";
import { Logger } from "@aws-lambda-powertools/logger";
import { SFNClient } from "@aws-sdk/client-sfn";
import { createDocumentClient, createGoalStore, createOutbox } from "../../adapters/goal-store-adapters";
import { emailApprovalNotifierFromEnv } from "../../adapters/ses/ses-email-notifier";
import { loadOnce } from "../../adapters/shared/load-once";
import { slackApprovalNotifierFromEnv } from "../../adapters/slack/slack-notifier";
import { sfnTaskCallback } from "../../adapters/step-functions/sfn-task-callback";
import { approvalIdFromBytes } from "../../core/goal/goal-ids";
import type { EmailApprovalNotifier } from "../../core/human/email/email-approval-notifier";
import type { ApprovalNotifiers } from "../../core/human/notify-approval";
import { requestApproval } from "../../core/loop/gates/request-approval";
import { positiveIntEnv, requiredEnv } from "../handler-environment";
import { RequestApprovalPayloadSchema } from "./state-payload";
import { stepHandler } from "./step-handler";

/** Matches the construct's default `approvalTimeout` (24 h): the approval expires with the wait. */
const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 86_400;

const logger = new Logger();
const table = { client: createDocumentClient(), tableName: requiredEnv("GOAL_TABLE_NAME") };
const goals = createGoalStore(table);
const outbox = createOutbox(table);
// No explicit endpoint: the SDK honours AWS_ENDPOINT_URL_SFN (the local runtime's Step Functions).
const callback = sfnTaskCallback(new SFNClient({ region: process.env.AWS_REGION }));
const settings = {
  approvalTimeoutSeconds: positiveIntEnv("APPROVAL_TIMEOUT_SECONDS", DEFAULT_APPROVAL_TIMEOUT_SECONDS),
};

/**
 * Slack and email, built once per container: locally (`NOTIFY_DELIVERY=outbox`) both write to the
 * outbox as they would send; deployed, Slack posts with the bot token and SES sends with signed links.
 * A channel without its settings is left out, and its requests get the plain outbox record.
 */
function notifiersFromEnv(env: NodeJS.ProcessEnv): ApprovalNotifiers {
  const local = env.NOTIFY_DELIVERY === "outbox";
  const slackConfigured = local || Boolean(env.SLACK_BOT_TOKEN || env.SLACK_BOT_TOKEN_ARN);
  let email: EmailApprovalNotifier | undefined;
  try {
    email = emailApprovalNotifierFromEnv(env, { outbox });
  } catch (error) {
    logger.warn("Approval emails are off: the email settings are incomplete", { error });
  }
  return {
    ...(slackConfigured ? { slack: slackApprovalNotifierFromEnv(env, outbox) } : {}),
    ...(email === undefined ? {} : { email }),
    onFailure: (channel, approvalId, error) =>
      logger.error("The approval request could not be sent on a channel; it stays in the outbox", {
        channel,
        approvalId,
        error,
      }),
  };
}
const notifiers = notifiersFromEnv(process.env);

/**
 * The deadline schedules (EventBridge Scheduler), loaded on the first wait of a goal with a deadline:
 * most waits have none, so their cold starts skip loading its SDK client.
 */
const deadlineSchedule = loadOnce(async () =>
  (await import("../../adapters/scheduler/scheduler-deadlines")).deadlineScheduleFromEnv(),
);
const rearmDeadline = {
  schedule: {
    set: async (goalId: string, deadline: string) => (await deadlineSchedule())?.set(goalId, deadline),
  },
  onError: (error: unknown) =>
    logger.error("deadline schedule not set; the approval still expires at the deadline", { error }),
};

/** 128 random bits: an approval id cannot be guessed, and says nothing about the token. */
const newApprovalId = () => approvalIdFromBytes(randomBytes(16));

/**
 * AwaitApproval's Lambda (`.waitForTaskToken`): store the approval with the token and park the goal
 * (see `requestApproval`). The answer is logged and returned without the token; the execution's
 * output comes from SendTaskSuccess, not from here.
 */
export const handler = stepHandler(logger, RequestApprovalPayloadSchema, (payload) =>
  requestApproval(
    { goals, outbox, callback, now: () => new Date(), newApprovalId, notifiers, rearmDeadline },
    settings,
    payload,
  ),
);
