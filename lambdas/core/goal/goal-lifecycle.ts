import { FIRST_TASK } from "./create-goal";
import { UnsatisfiedChecksError, ValidationError } from "./errors";
import { evidenceFor, unsatisfiedCheckIds } from "./evidence/check-evidence";
import { type GoalChange, goalEvent, settle } from "./goal-change";
import {
  type GoalRecord,
  type ResumeCondition,
  ResumeConditionSchema,
  type StopReason,
  type WaitingFor,
  WaitingForSchema,
} from "./goal-record";
import { assertTransition } from "./goal-status";
import { takeOver } from "./run-takeover";
import { parseOrThrow } from "./validation";

/** A stop reason as callers give it; the core stamps the time. */
export type StopReasonInput = Omit<StopReason, "at">;

/** The event that may wake a waiting goal: only one matching both waitingFor and resumeCondition does. */
export interface WakeEvent {
  readonly eventType: string;
  readonly approvalId: string;
}

/** The result of `resumeFromWait`: `woke` is false when the event did not match (nothing changed). */
export interface WakeResult extends GoalChange {
  readonly woke: boolean;
}

function stamp(reason: StopReasonInput, now: Date): StopReason {
  return { ...reason, at: now.toISOString() };
}

function touched(now: Date): Pick<GoalRecord, "updatedAt"> {
  return { updatedAt: now.toISOString() };
}

/** Marks the start of a step (`reason`, `act`, `verify` …) of a running goal. */
export function startStep(record: GoalRecord, task: string, now: Date): GoalChange {
  assertTransition(record, "running", "startStep", ["running"]);
  if (task.trim() === "") {
    throw new ValidationError("startStep needs a task name", [
      { path: "task", message: "must not be empty" },
    ]);
  }
  const next: GoalRecord = { ...record, ...touched(now), activeTask: task };
  return settle(next, [goalEvent(next, "step.started", now, { task })]);
}

/** Parks a running goal until an event matching both `waitingFor` and `resumeCondition` arrives. */
export function waitFor(
  record: GoalRecord,
  waitingFor: WaitingFor,
  resumeCondition: ResumeCondition,
  now: Date,
): GoalChange {
  assertTransition(record, "waiting", "waitFor", ["running"]);
  const waiting = parseOrThrow(WaitingForSchema, waitingFor, "waitingFor");
  const condition = parseOrThrow(ResumeConditionSchema, resumeCondition, "resumeCondition");
  if (waiting.approvalId !== condition.approvalId) {
    throw new ValidationError("waitingFor and resumeCondition must name the same approval", [
      { path: "resumeCondition.approvalId", message: `expected '${waiting.approvalId}'` },
    ]);
  }
  const next: GoalRecord = {
    ...record,
    ...touched(now),
    status: "waiting",
    activeTask: null,
    waitingFor: waiting,
    resumeCondition: condition,
  };
  return settle(next, [
    goalEvent(next, "goal.waiting", now, { waitingFor: waiting, resumeCondition: condition }),
  ]);
}

/** Whether `event` is the one the waiting goal waits for. Anything else must change nothing. */
export function matchesResumeCondition(record: GoalRecord, event: WakeEvent): boolean {
  return (
    record.status === "waiting" &&
    record.resumeCondition?.eventType === event.eventType &&
    record.resumeCondition.approvalId === event.approvalId &&
    record.waitingFor?.approvalId === event.approvalId
  );
}

/**
 * Wakes a waiting goal into `task` when `event` matches what it waits for. Duplicate, late or
 * foreign events (another approval, a revision, a goal that is not waiting) change nothing.
 */
export function resumeFromWait(record: GoalRecord, event: WakeEvent, task: string, now: Date): WakeResult {
  if (!matchesResumeCondition(record, event)) {
    return { record, events: [], woke: false };
  }
  assertTransition(record, "running", "resumeFromWait", ["waiting"]);
  const next: GoalRecord = {
    ...record,
    ...touched(now),
    status: "running",
    activeTask: task,
    waitingFor: null,
    resumeCondition: null,
    stopReason: null,
  };
  const woke = goalEvent(next, "goal.woken", now, {
    approvalId: event.approvalId,
    eventType: event.eventType,
    // The approval was given against this revision; a revised goal must ask again.
    approvedRevision: record.resumeCondition?.revision ?? record.revision,
    revision: record.revision,
    task,
  });
  return { ...settle(next, [woke]), woke: true };
}

/**
 * The system stops a running goal (no progress, policy), or a human's pause request reaches a step
 * boundary (`kind: "human"`); a human resume is needed. A pending pause request is met either way.
 */
export function pause(
  record: GoalRecord,
  reason: StopReasonInput,
  now: Date,
  fields: Readonly<Record<string, unknown>> = {},
): GoalChange {
  assertTransition(record, "paused", "pause", ["running"]);
  const stopReason = stamp(reason, now);
  const next: GoalRecord = {
    ...record,
    ...touched(now),
    status: "paused",
    activeTask: null,
    stopReason,
    pauseRequest: undefined,
  };
  return settle(next, [goalEvent(next, "goal.paused", now, { ...fields, stopReason })]);
}

/**
 * The stop reason's `detail` of a goal its tenant's daily budget paused (tenants/tenant-spend.ts):
 * the limit's name. Such a pause came before a model call, mid-iteration, so a resume takes the
 * iteration over as after a human's pause.
 */
export const TENANT_SPEND_LIMIT = "tenant.spendPerDayUsd";

export interface NewRunOptions {
  readonly newRunId: string;
  readonly now: Date;
}

/**
 * A human resumes a paused goal: a new run continues from the goal's checkpoint (invariant 5).
 * After a pause by the system (no progress, policy) it starts at iteration 0 with a fresh
 * no-progress count: the system paused between iterations. After a human's pause it takes over the
 * iteration the goal paused in (`takeOver`, as a retry does), keeping its no-progress count: a pause
 * that raced a model call paid for may have left that call counted but not acted on, and the new
 * run finds it under the lineage's name and acts on it instead of paying for it again.
 */
export function resume(record: GoalRecord, options: NewRunOptions & { by?: string }): GoalChange {
  assertTransition(record, "running", "resume", ["paused"]);
  const byHuman =
    record.stopReason?.kind === "human" ||
    (record.stopReason?.kind === "limit" && record.stopReason.detail === TENANT_SPEND_LIMIT);
  const run: Partial<GoalRecord> = byHuman
    ? { ...takeOver(record, options.newRunId), redriving: undefined }
    : {
        runId: options.newRunId,
        previousRunId: record.runId,
        runIteration: 0,
        takeover: undefined,
        noProgressCycles: 0,
      };
  const next: GoalRecord = {
    ...record,
    ...touched(options.now),
    ...run,
    status: "running",
    activeTask: FIRST_TASK,
    stopReason: null,
    pauseRequest: undefined,
  };
  const resumed = goalEvent(next, "goal.resumed", options.now, {
    from: record.status,
    previousRunId: record.runId,
    by: options.by ?? null,
    how: byHuman ? "takeover" : "new_run",
    iteration: next.runIteration,
  });
  return settle(next, [resumed]);
}

/**
 * A human retries a failed goal (`POST /goals/{goalId}/retry`). With `newRunId`, a new run takes over
 * the iteration the failed one stopped in (`takeOver`: invariant 5, nothing paid for twice). Without,
 * the failed run's own execution is redriven: the goal runs again in the same run, and that run's
 * RecordFailure, re-run by the redrive, hands it back to the loop (`redriving`).
 */
export function retry(
  record: GoalRecord,
  options: { readonly newRunId?: string; readonly now: Date; readonly by: string },
): GoalChange {
  assertTransition(record, "running", "retry", ["failed"]);
  const run =
    options.newRunId === undefined
      ? { redriving: record.runId }
      : { ...takeOver(record, options.newRunId), redriving: undefined };
  const next: GoalRecord = {
    ...record,
    ...touched(options.now),
    ...run,
    status: "running",
    activeTask: FIRST_TASK,
    stopReason: null,
  };
  const retried = goalEvent(next, "goal.retried", options.now, {
    how: options.newRunId === undefined ? "redrive" : "new_run",
    previousRunId: record.runId,
    failure: record.stopReason,
    by: options.by,
  });
  return settle(next, [retried]);
}

/** A long running goal starts a new execution from its checkpoint, well before the history limit. */
export function continueAsNew(record: GoalRecord, options: NewRunOptions): GoalChange {
  assertTransition(record, "running", "continueAsNew", ["running"]);
  const next: GoalRecord = {
    ...record,
    ...touched(options.now),
    runId: options.newRunId,
    previousRunId: record.runId,
    runIteration: 0,
    takeover: undefined,
    activeTask: FIRST_TASK,
  };
  const continued = goalEvent(next, "run.continued", options.now, {
    previousRunId: record.runId,
    previousRunIterations: record.runIteration,
  });
  return settle(next, [continued]);
}

function stop(
  record: GoalRecord,
  status: "cancelled" | "terminated" | "failed" | "completed",
  stopReason: StopReason,
  now: Date,
): GoalRecord {
  return {
    ...record,
    ...touched(now),
    status,
    activeTask: null,
    waitingFor: null,
    resumeCondition: null,
    // A wait on sub-goals is over with the goal: its token is nobody's to answer any more.
    subgoalWait: undefined,
    // A pause nobody reached any more: the goal ended first (completed, cancelled …).
    pauseRequest: undefined,
    stopReason,
  };
}

/** A human cancels the goal; final. */
export function cancel(record: GoalRecord, by: string, reason: string, now: Date): GoalChange {
  assertTransition(record, "cancelled", "cancel", ["running", "waiting", "paused", "failed"]);
  const stopReason = stamp({ kind: "cancelled", detail: by, message: reason }, now);
  const next = stop(record, "cancelled", stopReason, now);
  return settle(next, [goalEvent(next, "goal.cancelled", now, { by, reason, stopReason })]);
}

/** The system ends the goal for good: a limit nobody extended, a fatal error, a policy. */
export function terminate(record: GoalRecord, stopReason: StopReasonInput, now: Date): GoalChange {
  assertTransition(record, "terminated", "terminate", ["running", "waiting", "paused", "failed"]);
  const next = stop(record, "terminated", stamp(stopReason, now), now);
  return settle(next, [goalEvent(next, "goal.terminated", now, { stopReason: next.stopReason })]);
}

/** An infrastructure failure stopped the run; a redrive (`resume`) can start it again. */
export function fail(record: GoalRecord, stopReason: StopReasonInput, now: Date): GoalChange {
  assertTransition(record, "failed", "fail", ["running", "waiting"]);
  const next = stop(record, "failed", stamp(stopReason, now), now);
  return settle(next, [goalEvent(next, "goal.failed", now, { stopReason: next.stopReason })]);
}

/** Completes the goal. Throws UnsatisfiedChecksError unless every success check has evidence. */
export function complete(record: GoalRecord, now: Date): GoalChange {
  assertTransition(record, "completed", "complete", ["running"]);
  const unsatisfied = unsatisfiedCheckIds(record);
  if (unsatisfied.length > 0) {
    throw new UnsatisfiedChecksError(record.goalId, unsatisfied);
  }
  const stopReason = stamp(
    { kind: "completed", detail: "allChecksSatisfied", message: "every success check has evidence" },
    now,
  );
  const next = stop(record, "completed", stopReason, now);
  const completed = goalEvent(next, "goal.completed", now, {
    evidence: record.spec.successChecks.map((check) => ({
      checkId: check.id,
      strength: evidenceFor(record, check)?.strength ?? null,
    })),
  });
  return settle(next, [completed]);
}
