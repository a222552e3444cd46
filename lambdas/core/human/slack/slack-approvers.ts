import { escapeMrkdwn } from "./block-kit";

/**
 * Who may act through the Slack door: the configured approvers' Slack user ids
 * (`approvals.slack.approverUserIds`). A valid Slack signature only proves the request came from
 * the workspace; this list says which of its people may decide approvals and revise goals. An
 * empty list lets nobody act (deny by default).
 */
export function isSlackApprover(approverUserIds: ReadonlySet<string>, userId: string): boolean {
  return approverUserIds.has(userId);
}

/** What a refused person reads: why nothing happened, and who can change that. */
export function notAnApproverText(userId: string): string {
  return (
    `goal-loops did nothing: your Slack user id \`${escapeMrkdwn(userId)}\` is not on this deployment's approver list. ` +
    "Ask whoever deploys goal-loops to add it to `approvals.slack.approverUserIds` in goal-loops.config.json."
  );
}
