import type { GoalRecord } from "../goal/goal-record";
import type { Approval } from "../ports/goal-store";
import type { Outbox } from "../ports/outbox";
import type { EmailApprovalNotifier } from "./email/email-approval-notifier";

/** Posts an approval request to Slack (Block Kit with Approve / Reject), or to the outbox locally. */
export interface SlackApprovalPoster {
  notifyApprovalRequested(approval: Approval, goal: GoalRecord): Promise<unknown>;
}

/**
 * The real channels behind `approval.channels`: Slack and email. Either may be absent (not
 * configured); its channel then gets the plain outbox record that the API and the CLI read.
 */
export interface ApprovalNotifiers {
  readonly slack?: SlackApprovalPoster;
  readonly email?: EmailApprovalNotifier;
  /** Told when a channel could not be reached; the request still stands (API, CLI, other channels). */
  readonly onFailure?: (channel: string, approvalId: string, error: unknown) => void;
}

/**
 * Tells humans that an approval waits for them, on each of the goal's approval channels: `slack` as a
 * Block Kit message with Approve / Reject buttons, `email` (to `approval.email`, only when it is a
 * configured approver) with approve and reject links signed for that address, and any other channel (`api`, `cli`) as one plain outbox message. Every message
 * id is derived from the approval and the channel, so a retry sends nothing twice to the outbox; the
 * caller calls this once per newly stored approval, so Slack and SES are called once per approval.
 * A channel that fails is reported and falls back to the plain outbox record; the others still go.
 * Messages carry the approvalId only, never the task token.
 */
export async function notifyApprovalRequested(
  outbox: Outbox,
  approval: Approval,
  goal: GoalRecord,
  now: Date,
  notifiers: ApprovalNotifiers = {},
): Promise<void> {
  const channels = goal.spec.approval.channels;
  for (const channel of channels.length > 0 ? channels : ["api"]) {
    const sent = await sendOnChannel(notifiers, channel, approval, goal).catch((error: unknown) => {
      notifiers.onFailure?.(channel, approval.approvalId, error);
      return false;
    });
    if (!sent) await putPlainMessage(outbox, approval, channel, now);
  }
}

/** True when a real notifier took the message; false when the channel gets the plain record. */
async function sendOnChannel(
  notifiers: ApprovalNotifiers,
  channel: string,
  approval: Approval,
  goal: GoalRecord,
): Promise<boolean> {
  if (channel === "slack" && notifiers.slack) {
    await notifiers.slack.notifyApprovalRequested(approval, goal);
    return true;
  }
  const to = goal.spec.approval.email;
  if (channel === "email" && notifiers.email && to !== undefined) {
    await notifiers.email.sendApprovalEmail({ approval, objective: goal.spec.objective, to });
    return true;
  }
  return false;
}

async function putPlainMessage(
  outbox: Outbox,
  approval: Approval,
  channel: string,
  now: Date,
): Promise<void> {
  await outbox.putMessage({
    messageId: `approval-${approval.approvalId}-${channel}`,
    goalId: approval.goalId,
    tenantId: approval.tenantId,
    channel,
    message: approvalText(approval),
    createdAt: now.toISOString(),
  });
}

function approvalText(approval: Approval): string {
  const what = approval.action.kind === "limit" ? "A limit was reached" : "Approval needed";
  return (
    `${what} for goal ${approval.goalId}: ${approval.action.summary}. ` +
    `Approve or reject approval ${approval.approvalId} before ${approval.expiresAt} ` +
    `(POST /approvals/${approval.approvalId} {"decision":"approve"|"reject"}).`
  );
}
