import { FIRST_TASK } from "./create-goal";
import { type GoalChange, goalEvent, settle } from "./goal-change";
import type { NewRunOptions } from "./goal-lifecycle";
import type { GoalRecord } from "./goal-record";
import { assertStatus } from "./goal-status";
import { takeOver } from "./run-takeover";

/**
 * The run of a `running` or `waiting` goal died with the process that ran it (the local runtime was
 * stopped, or its execution ended while the goal still needed it): a new run (invariant 5) takes
 * over the iteration it was in (`takeOver`), status unchanged. A waiting goal keeps waiting on the
 * same approval, so the new run's AwaitApproval reuses it; a running goal's new run starts at its
 * first task and finishes the iteration without paying for a model call twice.
 */
export function reattachRun(record: GoalRecord, options: NewRunOptions): GoalChange {
  assertStatus(record, ["running", "waiting"], "reattachRun");
  const base: GoalRecord = {
    ...record,
    ...takeOver(record, options.newRunId),
    updatedAt: options.now.toISOString(),
  };
  const next: GoalRecord = record.status === "waiting" ? base : { ...base, activeTask: FIRST_TASK };
  const reattached = goalEvent(next, "run.reattached", options.now, {
    previousRunId: record.runId,
    status: record.status,
    iteration: next.runIteration,
    approvalId: record.waitingFor?.approvalId ?? null,
    // The new run starts on the goal's own version, whatever the stack deploys now.
    version: record.runsOn?.version ?? null,
  });
  return settle(next, [reattached]);
}
