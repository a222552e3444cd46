import { GOAL_METRICS, type GoalMetrics } from "../../adapters/metrics/goal-metrics";
import type { GoalStore } from "../../core/ports/goal-store";

export interface PendingApprovalsProbeDeps {
  readonly goals: Pick<GoalStore, "listApprovals">;
  readonly metrics: GoalMetrics;
  /** The tenants whose approvals count (APPROVAL_TENANT_IDS). */
  readonly tenantIds: readonly string[];
  readonly now: () => Date;
}

export interface PendingApprovalsMeasure {
  /** Seconds since the oldest pending approval was requested; 0 when none is pending. */
  readonly oldestAgeSeconds: number;
  readonly oldestApprovalId?: string;
}

/**
 * Publishes how long the oldest pending approval has waited, for the "oldest pending approval"
 * alarm. Measured on a schedule rather than when approvals are requested or decided: an approval
 * that sits unanswered is exactly the one that produces no event, so only a periodic look sees its
 * age grow past the threshold. It reads what `GET /approvals?status=pending` reads (the status
 * index lists a tenant's pending approvals oldest first), one item per tenant. 0 when none waits,
 * so the alarm always has data and a missing datapoint means the probe itself is broken (its
 * function's error alarm says so).
 */
export async function measurePendingApprovals(
  deps: PendingApprovalsProbeDeps,
): Promise<PendingApprovalsMeasure> {
  const oldest = (
    await Promise.all(
      deps.tenantIds.map((tenantId) => deps.goals.listApprovals({ tenantId, status: "pending", limit: 1 })),
    )
  )
    .flat()
    .sort((a, b) => Date.parse(a.requestedAt) - Date.parse(b.requestedAt))[0];
  const oldestAgeSeconds =
    oldest === undefined ? 0 : Math.max(0, (deps.now().getTime() - Date.parse(oldest.requestedAt)) / 1000);
  deps.metrics.publish([
    {
      dimensionSets: [{}],
      values: [
        { name: GOAL_METRICS.oldestPendingApprovalAgeSeconds, unit: "Seconds", value: oldestAgeSeconds },
      ],
    },
  ]);
  return oldest === undefined
    ? { oldestAgeSeconds }
    : { oldestAgeSeconds, oldestApprovalId: oldest.approvalId };
}
