import { type GoalChange, settle } from "../../goal/goal-change";
import { type StopReasonInput, terminate, waitFor } from "../../goal/goal-lifecycle";
import type { GoalRecord } from "../../goal/goal-record";
import { type StepDecision, withPlanState } from "../../goal/plan";
import { clip } from "../../goal/text";
import { HUMAN_INPUT_DETAIL_TYPES } from "../../human/human-input-events";

/** The approval action kind of a step decision (`tool`, `plan` and `limit` are the others). */
export const STEP_DECISION_KIND = "decision";

/** The unrecoverable step failure waiting for a human decision, if any. */
export function pendingStepDecision(record: GoalRecord): StepDecision | undefined {
  const decision = record.planState?.decision;
  return decision?.outcome === "pending" ? decision : undefined;
}

/**
 * Whether the goal waits on a step decision. A limit decision waits the same way (`decision`) but
 * keeps the reached limit as its stop reason; a step decision does not.
 */
export function waitsOnStepDecision(record: GoalRecord): boolean {
  return (
    record.status === "waiting" &&
    record.waitingFor?.kind === "decision" &&
    record.stopReason?.kind !== "limit" &&
    pendingStepDecision(record) !== undefined
  );
}

/** One line a human reads: what failed, and what each answer does. */
export function decisionSummary(decision: StepDecision): string {
  const text = `step ${decision.stepId} failed and cannot be retried (${decision.errorName}: ${decision.message}); approve to replan around it, reject to terminate the goal`;
  return clip(text, 500);
}

/** Parks the goal until a human decides on the failed step (the approval request announces it). */
export function awaitStepDecision(record: GoalRecord, approvalId: string, now: Date): GoalChange {
  const decision = pendingStepDecision(record);
  if (!decision) return settle(record, []);
  return waitFor(
    record,
    { kind: "decision", approvalId, reason: decisionSummary(decision) },
    { eventType: HUMAN_INPUT_DETAIL_TYPES.approvalDecided, approvalId, revision: record.revision },
    now,
  );
}

/** The human approved: Observe replans around the failed step (with the human's comment). */
export function approveStepDecision(
  record: GoalRecord,
  details: { decidedBy: string; comment?: string },
  now: Date,
): GoalChange {
  const state = record.planState;
  const decision = pendingStepDecision(record);
  if (!state || !decision) return settle(record, []);
  const approved: StepDecision = {
    ...decision,
    outcome: "approved",
    decidedBy: details.decidedBy,
    ...(details.comment === undefined ? {} : { comment: details.comment.slice(0, 2000) }),
  };
  return settle(withPlanState(record, { ...state, decision: approved }, now), []);
}

function stopReasonOf(decision: StepDecision | undefined, why: string): StopReasonInput {
  return {
    kind: "fatal_error",
    detail: decision?.errorName ?? "UnrecoverableStepFailure",
    message:
      `step ${decision?.stepId ?? "?"} failed unrecoverably (${decision?.message ?? "no detail"}); ${why}`.slice(
        0,
        2000,
      ),
  };
}

/** The human rejected: the goal ends, `terminated`, with the step's error as the reason. */
export function terminateOnStepDecision(record: GoalRecord, decidedBy: string, now: Date): GoalChange {
  return terminate(record, stopReasonOf(pendingStepDecision(record), `${decidedBy} chose to terminate`), now);
}

/** Nobody decided before the wait timed out: the goal ends, `terminated`. */
export function terminateOnDecisionTimeout(record: GoalRecord, now: Date): GoalChange {
  return terminate(
    record,
    stopReasonOf(pendingStepDecision(record), "no decision before the wait timed out"),
    now,
  );
}
