import { resume } from "../goal/goal-lifecycle";
import type { Pattern } from "../goal/goal-spec";
import { PAUSABLE_STATUSES, withdrawPause } from "../goal/human-pause";
import { runStateMachineArn } from "../goal/runs-on";
import type { IdSource } from "../loop/loop-deps";
import { updateGoal } from "../loop/update-goal";
import type { GoalStore, VersionedGoal } from "../ports/goal-store";
import type { StartRun } from "../ports/run-control";
import type { ResumeRequestedDetail } from "./human-input-events";

export interface HandleResumePorts {
  readonly goals: GoalStore;
  readonly startRun: StartRun;
  /** Pattern → state machine ARN (STATE_MACHINE_ARNS). */
  readonly stateMachineArns: Readonly<Partial<Record<Pattern, string>>>;
  readonly ids: IdSource;
  readonly now: () => Date;
}

export type HandleResumeResult =
  | {
      readonly outcome: "resumed";
      readonly goalId: string;
      readonly runId: string;
      readonly previousRunId: string;
    }
  | { readonly outcome: "withdrawn"; readonly goalId: string; readonly status: string }
  | { readonly outcome: "ignored"; readonly goalId: string; readonly reason: string };

/**
 * A `Resume Requested` event: a running or waiting goal whose pause request it has not reached yet
 * keeps going, the request withdrawn (`withdrawPause`). Otherwise only a `paused` goal wakes, as a new run (`r{n+1}`) from its checkpoint
 * (core `resume`), whose execution is then started. Anything else (a running, waiting or final goal,
 * a late or duplicate event) changes nothing and says why.
 *
 * A duplicate delivered after the commit but before the execution started (the start failed and the
 * event is retried) finds the goal running a run no step has loaded yet, and starts it again:
 * StartExecution is idempotent by name, so this only heals.
 */
export async function handleResumeRequested(
  ports: HandleResumePorts,
  detail: ResumeRequestedDetail,
): Promise<HandleResumeResult> {
  const { goalId } = detail;
  const found = await ports.goals.getGoal(goalId);
  if (!found) return { outcome: "ignored", goalId, reason: `goal '${goalId}' does not exist` };
  if (found.record.pauseRequest !== undefined && PAUSABLE_STATUSES.includes(found.record.status)) {
    const withdrawn = await withdrawPauseRequest(ports, found, detail.requestedBy);
    // The loop reached its boundary first: the goal is paused now, and the resume resumes it.
    if (withdrawn) return withdrawn;
  }
  // The version the goal runs on: a resumed goal goes on with the code it started with.
  const stateMachineArn = runStateMachineArn(found.record, ports.stateMachineArns);
  if (stateMachineArn === undefined) {
    return { outcome: "ignored", goalId, reason: `pattern ${found.record.pattern} is not deployed` };
  }
  const newRunId = ports.ids.nextRunId(found.record.runId);
  const now = ports.now();
  const { record } = await updateGoal(ports.goals, found, (current) =>
    current.status === "paused" && current.runId === found.record.runId
      ? resume(current, { newRunId, now, by: detail.requestedBy })
      : undefined,
  );
  const resumedNow = record.runId === newRunId && record.status === "running";
  const notStartedYet =
    record.status === "running" && record.previousRunId !== undefined && record.loop?.runId !== record.runId;
  if (!resumedNow && !notStartedYet) {
    return { outcome: "ignored", goalId, reason: `goal is ${record.status}; resume needs paused` };
  }
  await ports.startRun({ stateMachineArn, goalId, runId: record.runId });
  return { outcome: "resumed", goalId, runId: record.runId, previousRunId: record.previousRunId ?? "" };
}

/** Withdraws a pending pause; undefined when the goal paused (or changed) before the commit. */
async function withdrawPauseRequest(
  ports: HandleResumePorts,
  found: VersionedGoal,
  by: string,
): Promise<HandleResumeResult | undefined> {
  const now = ports.now();
  const { record } = await updateGoal(ports.goals, found, (current) =>
    PAUSABLE_STATUSES.includes(current.status) ? withdrawPause(current, by, now) : undefined,
  );
  if (!PAUSABLE_STATUSES.includes(record.status) || record.pauseRequest !== undefined) return undefined;
  return { outcome: "withdrawn", goalId: record.goalId, status: record.status };
}
