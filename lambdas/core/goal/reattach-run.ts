import { FIRST_TASK } from "./create-goal";
import { type GoalChange, goalEvent, settle } from "./goal-change";
import type { NewRunOptions } from "./goal-lifecycle";
import type { GoalRecord } from "./goal-record";
import { assertStatus } from "./goal-status";

/**
 * The run of a `running` or `waiting` goal died with the process that ran it (the local runtime was
 * stopped): a new run (invariant 5) takes over from the goal's checkpoint, status unchanged.
 *
 * - A running goal starts its new run at iteration 0, like `continueAsNew`.
 * - A waiting goal keeps waiting on the same approval and resume condition at the same iteration; its
 *   pending tool gate moves into the new run, so the new run's AwaitApproval reuses the approval and
 *   its Act runs the calls the human approves.
 */
export function reattachRun(record: GoalRecord, options: NewRunOptions): GoalChange {
  assertStatus(record, ["running", "waiting"], "reattachRun");
  const base: GoalRecord = {
    ...record,
    updatedAt: options.now.toISOString(),
    runId: options.newRunId,
    previousRunId: record.runId,
  };
  const next: GoalRecord =
    record.status === "waiting"
      ? { ...base, actionGate: movedGate(record, options.newRunId) }
      : { ...base, runIteration: 0, activeTask: FIRST_TASK };
  const reattached = goalEvent(next, "run.reattached", options.now, {
    previousRunId: record.runId,
    status: record.status,
    iteration: next.runIteration,
    approvalId: record.waitingFor?.approvalId ?? null,
  });
  return settle(next, [reattached]);
}

function movedGate(record: GoalRecord, runId: string): GoalRecord["actionGate"] {
  const gate = record.actionGate;
  if (!gate || gate.runId !== record.runId) return gate;
  return { ...gate, runId };
}
