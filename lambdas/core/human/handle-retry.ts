import { retry } from "../goal/goal-lifecycle";
import type { Pattern } from "../goal/goal-spec";
import { runStateMachineArn } from "../goal/runs-on";
import type { IdSource } from "../loop/loop-deps";
import { type ReviveRunPorts, reviveDeadRun } from "../loop/reattach-goal";
import { updateGoal } from "../loop/update-goal";
import type { GoalStore } from "../ports/goal-store";
import type { RedriveRun, RunRef, StartRun } from "../ports/run-control";
import type { RetryRequestedDetail } from "./human-input-events";
import { supersedePendingApprovals } from "./supersede-pending-approvals";

export interface HandleRetryPorts extends ReviveRunPorts {
  readonly goals: GoalStore;
  readonly startRun: StartRun;
  /** Pattern → state machine ARN (STATE_MACHINE_ARNS). */
  readonly stateMachineArns: Readonly<Partial<Record<Pattern, string>>>;
  readonly ids: IdSource;
  readonly now: () => Date;
  /** Step Functions redrive, deployed; absent (the local runtime), every retry is a new run. */
  readonly redriveRun?: RedriveRun;
}

export type HandleRetryResult =
  | {
      readonly outcome: "redriven" | "new_run";
      readonly goalId: string;
      readonly runId: string;
    }
  | { readonly outcome: "ignored"; readonly goalId: string; readonly reason: string };

/**
 * A `Retry Requested` event (`POST /goals/{goalId}/retry`): only a `failed` goal runs again, and no
 * model call it paid for is paid again.
 *
 * - Deployed, inside Step Functions' redrive window, its failed execution is redriven: the goal runs
 *   on in the same run (`retry` marks it `redriving`), from RecordFailure, the state it failed in.
 * - Otherwise (the window passed, or the local runtime) a new run takes over the iteration the
 *   failed one stopped in, from the goal's checkpoint, and its execution is started.
 *
 * Either way the approvals still pending for the failed run are superseded first: their task tokens
 * died with it, and the run that goes on asks again if it still needs a human.
 *
 * A duplicate event after the commit finds the goal running again and only makes sure its run is
 * live (`reviveDeadRun`: a start that failed is made again); anything but `failed` is left alone.
 */
export async function handleRetryRequested(
  ports: HandleRetryPorts,
  detail: RetryRequestedDetail,
): Promise<HandleRetryResult> {
  const { goalId } = detail;
  const found = await ports.goals.getGoal(goalId);
  if (!found) return { outcome: "ignored", goalId, reason: `goal '${goalId}' does not exist` };
  const { record } = found;
  // A new run starts on the version the goal runs on; a redrive goes on in its own execution (same version).
  const stateMachineArn = runStateMachineArn(record, ports.stateMachineArns);
  if (stateMachineArn === undefined) {
    return { outcome: "ignored", goalId, reason: `pattern ${record.pattern} is not deployed` };
  }
  if (record.status === "running" && record.previousRunId !== undefined) {
    const revived = await reviveDeadRun(ports, goalId);
    if (revived) return { outcome: "new_run", goalId, runId: revived.runId };
  }
  if (record.status !== "failed") {
    return { outcome: "ignored", goalId, reason: `goal is ${record.status}; retry needs failed` };
  }
  const failedRun: RunRef = { stateMachineArn, goalId, runId: record.runId };
  const now = ports.now();
  const redrivable = (await ports.redriveRun?.isRedrivable(failedRun)) ?? false;
  const newRunId = redrivable ? undefined : ports.ids.nextRunId(record.runId);
  const { record: retried } = await updateGoal(ports.goals, found, (current) =>
    current.status === "failed" && current.runId === record.runId
      ? retry(current, { now, by: detail.requestedBy, ...(newRunId === undefined ? {} : { newRunId }) })
      : undefined,
  );
  if (retried.status !== "running") {
    return { outcome: "ignored", goalId, reason: `goal is ${retried.status}; retry needs failed` };
  }
  // An approval the failed run was waiting on (or had stored before it could park) has a dead task
  // token: the retried run asks again, and the old request must not stay decidable in the inbox.
  await supersedePendingApprovals(ports.goals, retried.tenantId, goalId);
  if (newRunId === undefined && retried.redriving === record.runId) {
    // The window may close between the look and the redrive: then a new run takes over instead.
    if (await ports.redriveRun?.redrive(failedRun))
      return { outcome: "redriven", goalId, runId: record.runId };
    const revived = await reviveDeadRun(ports, goalId);
    return { outcome: "new_run", goalId, runId: revived?.runId ?? retried.runId };
  }
  await ports.startRun({ stateMachineArn, goalId, runId: retried.runId });
  return { outcome: "new_run", goalId, runId: retried.runId };
}
