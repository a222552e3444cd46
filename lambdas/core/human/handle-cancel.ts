import { cancel } from "../goal/goal-lifecycle";
import type { Pattern } from "../goal/goal-spec";
import { isFinal } from "../goal/goal-status";
import { updateGoal } from "../loop/update-goal";
import type { GoalStore } from "../ports/goal-store";
import type { StopRun } from "../ports/run-control";
import type { CancelRequestedDetail } from "./human-input-events";
import { supersedePendingApprovals } from "./supersede-pending-approvals";

export interface HandleCancelPorts {
  readonly goals: GoalStore;
  readonly stopRun: StopRun;
  /** Pattern → state machine ARN (STATE_MACHINE_ARNS). */
  readonly stateMachineArns: Readonly<Partial<Record<Pattern, string>>>;
  readonly now: () => Date;
}

export type HandleCancelResult =
  | {
      readonly outcome: "cancelled" | "already_cancelled";
      readonly goalId: string;
      readonly runId: string;
      /** Approvals of the goal that were pending and are now `superseded`. */
      readonly supersededApprovals: readonly string[];
    }
  | { readonly outcome: "ignored"; readonly goalId: string; readonly reason: string };

/**
 * A `Cancel Requested` event: any non-final goal is cancelled (core `cancel`, final), its current
 * run's execution is stopped, and its pending approvals are marked `superseded` so no door can
 * decide them. A goal already cancelled gets the stop and the superseding again (a redelivery after
 * either failed heals; both are idempotent); another final goal is left alone, with the reason.
 */
export async function handleCancelRequested(
  ports: HandleCancelPorts,
  detail: CancelRequestedDetail,
): Promise<HandleCancelResult> {
  const { goalId } = detail;
  const found = await ports.goals.getGoal(goalId);
  if (!found) return { outcome: "ignored", goalId, reason: `goal '${goalId}' does not exist` };
  const reason = detail.reason ?? `cancelled through ${detail.channel}`;
  const now = ports.now();
  const before = found.record.status;
  const { record } = await updateGoal(ports.goals, found, (current) =>
    isFinal(current.status) ? undefined : cancel(current, detail.requestedBy, reason, now),
  );
  if (record.status !== "cancelled") {
    return {
      outcome: "ignored",
      goalId,
      reason: `goal is ${record.status}; cancel needs a goal that is not final`,
    };
  }
  const stateMachineArn = ports.stateMachineArns[record.pattern];
  if (stateMachineArn !== undefined) {
    await ports.stopRun({ stateMachineArn, goalId, runId: record.runId, cause: `goal cancelled: ${reason}` });
  }
  const supersededApprovals = await supersedePendingApprovals(ports.goals, record.tenantId, goalId);
  return {
    outcome: before === "cancelled" ? "already_cancelled" : "cancelled",
    goalId,
    runId: record.runId,
    supersededApprovals,
  };
}
