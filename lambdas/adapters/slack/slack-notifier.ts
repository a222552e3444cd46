import { GoalLoopsError } from "../../core/goal/errors";
import type { GoalRecord } from "../../core/goal/goal-record";
import { toSnapshot } from "../../core/goal/snapshot";
import { approvalRequestMessage, approvalView } from "../../core/human/slack/approval-message";
import type { SlackMessage } from "../../core/human/slack/block-kit";
import type { Approval } from "../../core/ports/goal-store";
import type { Outbox } from "../../core/ports/outbox";
import { type SecretSource, slackSecretsFromEnv } from "../secrets/slack-secrets";
import { type SlackChatClient, type SlackPostMessageArguments, slackWebApi } from "./slack-web-api";

/** Slack refused the message (bad channel, revoked token …), or no channel is configured. */
export class SlackNotifyError extends GoalLoopsError {
  override readonly name = "SlackNotifyError";
}

/** The outbox message id of an approval's Slack message: a retried request finds the first one. */
export function slackApprovalMessageId(approvalId: string): string {
  return `slack-approval-${approvalId}`;
}

/** Where the message went: the Slack channel and message `ts`, or the outbox message id locally. */
export type SlackNotifyReceipt =
  | { readonly delivery: "slack"; readonly channel: string; readonly ts: string | undefined }
  | { readonly delivery: "outbox"; readonly channel: string; readonly messageId: string };

export type SlackDelivery =
  | { readonly kind: "slack"; readonly client: SlackChatClient; readonly botToken: SecretSource }
  | { readonly kind: "outbox"; readonly outbox: Outbox };

export interface SlackApprovalNotifierOptions {
  readonly delivery: SlackDelivery;
  /** Used when the goal's `approval.slackChannel` is not set (env `SLACK_DEFAULT_CHANNEL`). */
  readonly defaultChannel?: string;
  readonly now?: () => Date;
}

/**
 * Posts an approval request to Slack: the pending action, the goal's snapshot and Approve / Reject
 * buttons that carry only the approval id. Locally (`NOTIFY_DELIVERY=outbox`) the same message, as
 * `chat.postMessage` would send it, goes to the outbox instead, where the CLI and `npm start` show it.
 */
export class SlackApprovalNotifier {
  private readonly delivery: SlackDelivery;
  private readonly defaultChannel: string | undefined;
  private readonly now: () => Date;

  constructor(options: SlackApprovalNotifierOptions) {
    this.delivery = options.delivery;
    this.defaultChannel = options.defaultChannel;
    this.now = options.now ?? (() => new Date());
  }

  async notifyApprovalRequested(approval: Approval, goal: GoalRecord): Promise<SlackNotifyReceipt> {
    const channel = goal.spec.approval.slackChannel ?? this.defaultChannel;
    if (channel === undefined || channel === "") {
      throw new SlackNotifyError(
        `No Slack channel for goal ${goal.goalId}: set approval.slackChannel or SLACK_DEFAULT_CHANNEL`,
      );
    }
    const message = approvalRequestMessage(approvalView(approval), toSnapshot(goal));
    if (this.delivery.kind === "outbox") {
      const { message: stored } = await this.delivery.outbox.putMessage({
        messageId: slackApprovalMessageId(approval.approvalId),
        goalId: goal.goalId,
        tenantId: goal.tenantId,
        channel: "slack",
        message: JSON.stringify(postMessageArguments(channel, message)),
        createdAt: this.now().toISOString(),
      });
      return { delivery: "outbox", channel, messageId: stored.messageId };
    }
    const token = await this.delivery.botToken();
    const answer = await this.delivery.client.chat
      .postMessage({ token, ...postMessageArguments(channel, message) })
      .catch((error: unknown) => {
        throw new SlackNotifyError(`chat.postMessage to ${channel} failed`, { cause: error });
      });
    return { delivery: "slack", channel, ts: answer.ts };
  }
}

/** The `chat.postMessage` arguments, without the token: the exact message the outbox shows locally. */
export function postMessageArguments(
  channel: string,
  message: SlackMessage,
): Omit<SlackPostMessageArguments, "token"> {
  return { channel, text: message.text, blocks: [...message.blocks] };
}

/** The notifier for a handler's module scope: the outbox locally, Slack with the bot token deployed. */
export function slackApprovalNotifierFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  outbox: Outbox,
): SlackApprovalNotifier {
  const defaultChannel = env.SLACK_DEFAULT_CHANNEL;
  const delivery: SlackDelivery =
    env.NOTIFY_DELIVERY === "outbox"
      ? { kind: "outbox", outbox }
      : {
          kind: "slack",
          client: slackWebApi({ retries: 2 }),
          botToken: slackSecretsFromEnv(env).botToken,
        };
  return new SlackApprovalNotifier({ delivery, ...(defaultChannel ? { defaultChannel } : {}) });
}
