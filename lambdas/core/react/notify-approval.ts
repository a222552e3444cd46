import type { Approval } from "../ports/goal-store";
import type { Outbox } from "../ports/outbox";

/**
 * Tells humans that an approval waits for them, on each of the goal's approval channels. This puts
 * one plain message per channel in the outbox (messageId per approval and channel, so a retry sends
 * nothing twice); the Slack and email helpers extend it with Block Kit and signed links. It carries
 * the approvalId only, never the task token.
 */
export async function notifyApprovalRequested(
  outbox: Outbox,
  approval: Approval,
  channels: readonly string[],
  now: Date,
): Promise<void> {
  for (const channel of channels.length > 0 ? channels : ["api"]) {
    await outbox.putMessage({
      messageId: `approval-${approval.approvalId}-${channel}`,
      goalId: approval.goalId,
      tenantId: approval.tenantId,
      channel,
      message: approvalText(approval),
      createdAt: now.toISOString(),
    });
  }
}

function approvalText(approval: Approval): string {
  const what = approval.action.kind === "limit" ? "A limit was reached" : "Approval needed";
  return (
    `${what} for goal ${approval.goalId}: ${approval.action.summary}. ` +
    `Approve or reject approval ${approval.approvalId} before ${approval.expiresAt} ` +
    `(POST /approvals/${approval.approvalId} {"decision":"approve"|"reject"}).`
  );
}
