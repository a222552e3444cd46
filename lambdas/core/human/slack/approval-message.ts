import type { GoalSnapshot } from "../../goal/goal-record";
import { clip } from "../../goal/text";
import type { Approval } from "../../ports/goal-store";
import {
  type ButtonElement,
  escapeMrkdwn,
  mrkdwn,
  plainText,
  type SlackBlock,
  type SlackMessage,
} from "./block-kit";
import { snapshotBlocks } from "./goal-snapshot-blocks";

/** The `action_id`s of the two buttons; the interactions route maps them back to a decision. */
export const APPROVAL_ACTION_IDS = { approve: "approve", reject: "reject" } as const;
export const APPROVAL_ACTIONS_BLOCK_ID = "approval";

/**
 * What a message may show of an approval. The task token is not in it: the builders cannot put
 * what they are never given into a message (DESIGN §5).
 */
export type ApprovalView = Pick<
  Approval,
  "approvalId" | "goalId" | "status" | "action" | "revision" | "requestedAt" | "expiresAt" | "decision"
>;

/** What a door's decision came to, as the updated message tells it. */
export type ApprovalMessageOutcome =
  | { readonly kind: "decided" | "already_decided" | "expired"; readonly approval: ApprovalView }
  | { readonly kind: "not_found"; readonly approvalId: string };

/** Only the fields a message shows: copying field by field keeps anything else (the token) out. */
export function approvalView(approval: ApprovalView): ApprovalView {
  const { approvalId, goalId, status, action, revision, requestedAt, expiresAt, decision } = approval;
  return {
    approvalId,
    goalId,
    status,
    action: { kind: action.kind, summary: action.summary, fingerprint: action.fingerprint },
    revision,
    requestedAt,
    expiresAt,
    ...(decision === undefined ? {} : { decision }),
  };
}

/** An instant as Slack shows it in the reader's time zone, with the ISO text as the fallback. */
function slackDate(iso: string): string {
  const epoch = Math.floor(Date.parse(iso) / 1000);
  return Number.isFinite(epoch) ? `<!date^${epoch}^{date_short_pretty} at {time}|${iso}>` : escapeMrkdwn(iso);
}

/** `slack:U123` (how the Slack door records its users) as a mention; anyone else as plain text. */
export function whoText(decidedBy: string): string {
  const slackUser = /^slack:([A-Z0-9]{1,32})$/.exec(decidedBy)?.[1];
  return slackUser === undefined ? escapeMrkdwn(clip(decidedBy, 200)) : `<@${slackUser}>`;
}

function actionBlocks(title: string, approval: ApprovalView): SlackBlock[] {
  return [
    { type: "header", text: plainText(`${title}: ${approval.action.kind}`) },
    {
      type: "section",
      text: mrkdwn(`*Pending action*\n${escapeMrkdwn(clip(approval.action.summary, 2500))}`),
    },
  ];
}

function button(kind: keyof typeof APPROVAL_ACTION_IDS, approvalId: string): ButtonElement {
  const approve = kind === "approve";
  return {
    type: "button",
    action_id: APPROVAL_ACTION_IDS[kind],
    text: plainText(approve ? "Approve" : "Reject"),
    // Only the approval id: the task token stays in the store.
    value: approvalId,
    style: approve ? "primary" : "danger",
  };
}

/** The request: the pending action, the goal's snapshot, the expiry and Approve / Reject buttons. */
export function approvalRequestMessage(approval: ApprovalView, goal: GoalSnapshot | undefined): SlackMessage {
  const summary = clip(approval.action.summary, 200);
  return {
    text: `Approval needed for goal ${approval.goalId}: ${summary}`,
    blocks: [
      ...actionBlocks("Approval needed", approval),
      ...snapshotBlocks(goal, approval.goalId),
      {
        type: "context",
        elements: [
          mrkdwn(
            `Approval \`${escapeMrkdwn(approval.approvalId)}\` · expires ${slackDate(approval.expiresAt)}`,
          ),
        ],
      },
      {
        type: "actions",
        block_id: APPROVAL_ACTIONS_BLOCK_ID,
        elements: [button("approve", approval.approvalId), button("reject", approval.approvalId)],
      },
    ],
  };
}

/** One line on what became of the approval: outcome, who, when. */
function outcomeLine(outcome: Exclude<ApprovalMessageOutcome, { kind: "not_found" }>): string {
  const { approval } = outcome;
  const decision = approval.decision;
  if (outcome.kind === "expired" || approval.status === "expired") {
    return `:alarm_clock: *Expired* at ${slackDate(approval.expiresAt)}: no decision was taken in time.`;
  }
  if (approval.status === "superseded") {
    return ":arrows_counterclockwise: *Superseded*: the goal changed; a new approval will be requested.";
  }
  if (decision === undefined) return `Status: ${approval.status}`;
  const verdict = decision.decision === "approve" ? ":white_check_mark: *Approved*" : ":x: *Rejected*";
  const prefix = outcome.kind === "already_decided" ? "Already decided: " : "";
  const comment = decision.comment === undefined ? "" : `\n> ${escapeMrkdwn(clip(decision.comment, 500))}`;
  return `${prefix}${verdict} by ${whoText(decision.decidedBy)} at ${slackDate(decision.decidedAt)}${comment}`;
}

/** The message after a click: the same request with the outcome in place of the buttons. */
export function approvalOutcomeMessage(
  outcome: ApprovalMessageOutcome,
  goal: GoalSnapshot | undefined,
): SlackMessage {
  if (outcome.kind === "not_found") {
    const line = `:grey_question: Approval \`${escapeMrkdwn(outcome.approvalId)}\` does not exist (any more).`;
    return {
      text: `Approval ${outcome.approvalId} does not exist`,
      blocks: [{ type: "section", text: mrkdwn(line) }],
    };
  }
  const line = outcomeLine(outcome);
  return {
    text: `Approval ${outcome.approval.approvalId}: ${outcome.approval.status}`,
    blocks: [
      ...actionBlocks("Approval", outcome.approval),
      ...snapshotBlocks(goal, outcome.approval.goalId),
      { type: "section", text: mrkdwn(line) },
    ],
  };
}
