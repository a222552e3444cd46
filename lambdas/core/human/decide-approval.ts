import {
  type Approval,
  ApprovalAlreadyDecidedError,
  ApprovalNotFoundError,
  type GoalStore,
} from "../ports/goal-store";
import type { HumanInputPublisher } from "../ports/human-input-publisher";
import type { HumanInputChannel } from "./human-input-events";
import { HUMAN_INPUT_DETAIL_TYPES } from "./human-input-events";

export interface DecideApprovalPorts {
  readonly goals: GoalStore;
  readonly publisher: HumanInputPublisher;
  readonly now: () => Date;
}

export interface DecideApprovalInput {
  readonly approvalId: string;
  readonly decision: "approve" | "reject";
  readonly decidedBy: string;
  readonly comment?: string;
  readonly channel: HumanInputChannel;
  /** The caller's tenant when the door knows it (API): another tenant's approval is `not_found`. */
  readonly tenantId?: string;
}

export type DecideApprovalResult =
  | { readonly outcome: "decided"; readonly approval: Approval }
  | { readonly outcome: "already_decided"; readonly approval: Approval }
  | { readonly outcome: "expired"; readonly approval: Approval }
  | { readonly outcome: "not_found" };

/** Statuses that can no longer be decided by anyone: answered as `expired` (HTTP 410). */
const GONE: ReadonlySet<Approval["status"]> = new Set(["expired", "superseded"]);

/**
 * THE one place a human decision is taken, whichever door it came through (API, Slack, email, CLI).
 * The store's conditional write decides exactly once (of 20 concurrent callers one wins); an approval
 * past `expiresAt` is marked expired instead; then `Approval Decided` goes on the bus for the resume
 * handler. If publishing fails the approval stays decided and the error reaches the caller: a retry by
 * the same person with the same decision finds it decided and publishes again while the goal still
 * waits (the resume handler is idempotent, so an extra event changes nothing).
 */
export async function decideApprovalFromDoor(
  ports: DecideApprovalPorts,
  input: DecideApprovalInput,
): Promise<DecideApprovalResult> {
  const current = await ports.goals.getApproval(input.approvalId);
  if (!current || (input.tenantId !== undefined && current.tenantId !== input.tenantId)) {
    return { outcome: "not_found" };
  }
  if (current.status !== "pending") return settled(ports, input, current);

  const now = ports.now();
  if (Date.parse(current.expiresAt) <= now.getTime()) {
    const expired = await decideOnce(ports, input.approvalId, { status: "expired" });
    return expired.won
      ? { outcome: "expired", approval: expired.approval }
      : settled(ports, input, expired.approval);
  }

  const decision: NonNullable<Approval["decision"]> = {
    decision: input.decision,
    decidedBy: input.decidedBy,
    decidedAt: now.toISOString(),
    ...(input.comment === undefined ? {} : { comment: input.comment }),
  };
  const status = input.decision === "approve" ? "approved" : "rejected";
  const result = await decideOnce(ports, input.approvalId, { status, decision });
  if (!result.won) return settled(ports, input, result.approval);
  await publishDecision(ports, input, result.approval);
  return { outcome: "decided", approval: result.approval };
}

type DecideOnce = { readonly won: boolean; readonly approval: Approval };

async function decideOnce(
  ports: DecideApprovalPorts,
  approvalId: string,
  outcome: Parameters<GoalStore["decideApproval"]>[1],
): Promise<DecideOnce> {
  try {
    return { won: true, approval: await ports.goals.decideApproval(approvalId, outcome) };
  } catch (error) {
    if (!(error instanceof ApprovalAlreadyDecidedError)) throw error;
    const stored = await ports.goals.getApproval(approvalId);
    if (!stored) throw new ApprovalNotFoundError(`Approval ${approvalId} vanished after it was decided`);
    return { won: false, approval: stored };
  }
}

/** Someone (or the clock) got there first: say so, and re-publish a same-person retry that may have been lost. */
async function settled(
  ports: DecideApprovalPorts,
  input: DecideApprovalInput,
  approval: Approval,
): Promise<DecideApprovalResult> {
  if (GONE.has(approval.status)) return { outcome: "expired", approval };
  const same =
    approval.decision?.decision === input.decision && approval.decision.decidedBy === input.decidedBy;
  if (same && (await goalStillWaitsFor(ports.goals, approval))) {
    await publishDecision(ports, input, approval);
  }
  return { outcome: "already_decided", approval };
}

async function goalStillWaitsFor(goals: GoalStore, approval: Approval): Promise<boolean> {
  const goal = await goals.getGoal(approval.goalId);
  return goal?.record.status === "waiting" && goal.record.waitingFor?.approvalId === approval.approvalId;
}

async function publishDecision(
  ports: DecideApprovalPorts,
  input: DecideApprovalInput,
  approval: Approval,
): Promise<void> {
  const decision = approval.decision;
  if (!decision) return;
  await ports.publisher.publish({
    detailType: HUMAN_INPUT_DETAIL_TYPES.approvalDecided,
    detail: {
      approvalId: approval.approvalId,
      goalId: approval.goalId,
      decision: decision.decision,
      decidedBy: decision.decidedBy,
      ...(decision.comment === undefined ? {} : { comment: decision.comment }),
      channel: input.channel,
      decidedAt: decision.decidedAt,
    },
  });
}
