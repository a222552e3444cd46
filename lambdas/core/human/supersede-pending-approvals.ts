import type { GoalStore } from "../ports/goal-store";

/** How many of a tenant's pending approvals a sweep looks through for the goal's own. */
const PENDING_APPROVALS_PAGE = 1000;

/**
 * Marks every pending approval of one goal `superseded`, so no door can decide it any more: the wait
 * it belonged to is over (the goal was cancelled, or failed and is retried in a run that asks again).
 * An approval a human decided meanwhile is left as decided; its decision wakes nothing. Returns the
 * ids it superseded.
 */
export async function supersedePendingApprovals(
  goals: GoalStore,
  tenantId: string,
  goalId: string,
): Promise<string[]> {
  const pending = await goals.listApprovals({ tenantId, status: "pending", limit: PENDING_APPROVALS_PAGE });
  const superseded: string[] = [];
  for (const approval of pending.filter((item) => item.goalId === goalId)) {
    try {
      await goals.decideApproval(approval.approvalId, { status: "superseded" });
      superseded.push(approval.approvalId);
    } catch (error) {
      if (!(error instanceof Error && error.name === "ApprovalAlreadyDecidedError")) throw error;
    }
  }
  return superseded;
}
