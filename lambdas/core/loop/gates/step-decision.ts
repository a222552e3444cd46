import { type GoalChange, goalEvent, settle } from "../../goal/goal-change";
import { type StopReasonInput, terminate } from "../../goal/goal-lifecycle";
import type { GoalRecord, ToolDecision } from "../../goal/goal-record";
import { type StepDecision, withPlanState } from "../../goal/plan";
import { clip } from "../../goal/text";
import type { StepRecord } from "../../ports/step-log";
import { callResults, errorNameOf } from "../tool-call-results";
import { awaitDecision } from "./await-decision";

/** The approval action kind of a step decision (`tool`, `plan` and `limit` are the others). */
export const STEP_DECISION_KIND = "decision";

/**
 * The unrecoverable failure waiting for a human decision, if any: a plan step's (plan_execute, on
 * the plan) or a tool call's (react and reflexion, `toolDecision`).
 */
export function pendingStepDecision(record: GoalRecord): StepDecision | ToolDecision | undefined {
  const planned = record.planState?.decision;
  if (planned?.outcome === "pending") return planned;
  return record.toolDecision?.outcome === "pending" ? record.toolDecision : undefined;
}

/**
 * Errors no retry of the same call can fix (DESIGN §3): access denied, a request the service
 * refuses as invalid, a safety policy. A model's bad call (unknown tool, bad input, a tool it may
 * not use) and a human's own refusal go back to the model as tool errors instead. A user tool that
 * answers `{error: {fatal: true}}` is reported as `Fatal<name>`.
 */
const FATAL_TOOL_ERROR =
  /^Fatal|AccessDenied|Unauthori[sz]ed|Forbidden|NotAuthorized|ValidationException|Policy|Guardrail|ContentFiltered|HttpStatus(401|403)$/;

/**
 * When a call of `step` failed in a way no retry fixes, the goal asks a human before the model makes
 * another call (react and reflexion; plan_execute decides on the plan step): approve goes on without
 * it, reject terminates. One question at a time, and only while the goal runs.
 */
export function askOnFatalToolError(record: GoalRecord, step: StepRecord, now: Date): GoalChange | undefined {
  if (record.status !== "running" || pendingStepDecision(record)) return undefined;
  const fatal = callResults(step).flatMap((call) => {
    const errorName = errorNameOf(call);
    return errorName !== undefined && FATAL_TOOL_ERROR.test(errorName) ? [{ call, errorName }] : [];
  })[0];
  if (!fatal) return undefined;
  const decision: ToolDecision = {
    stepId: `step-${step.step}`,
    tool: fatal.call.tool,
    errorName: fatal.errorName.slice(0, 200),
    message: clip(fatal.call.text, 1000),
    outcome: "pending",
  };
  const next: GoalRecord = { ...record, toolDecision: decision, updatedAt: now.toISOString() };
  return settle(next, [
    goalEvent(next, "decision.needed", now, {
      step: step.step,
      tool: decision.tool,
      errorName: decision.errorName,
      message: decision.message,
    }),
  ]);
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
export function decisionSummary(decision: StepDecision | ToolDecision): string {
  const text =
    "tool" in decision
      ? `${decision.tool} failed in ${decision.stepId} and cannot be retried (${decision.errorName}: ${decision.message}); approve to go on without it, reject to terminate the goal`
      : `step ${decision.stepId} failed and cannot be retried (${decision.errorName}: ${decision.message}); approve to replan around it, reject to terminate the goal`;
  return clip(text, 500);
}

/** Parks the goal until a human decides on the failed step (the approval request announces it). */
export function awaitStepDecision(record: GoalRecord, approvalId: string, now: Date): GoalChange {
  const decision = pendingStepDecision(record);
  if (!decision) return settle(record, []);
  return awaitDecision(record, { kind: "decision", approvalId, reason: decisionSummary(decision) }, now);
}

/**
 * The human approved: Observe replans around the failed plan step (plan_execute), or the model goes
 * on without the failed call (react, reflexion), with the human's comment.
 */
export function approveStepDecision(
  record: GoalRecord,
  details: { decidedBy: string; comment?: string },
  now: Date,
): GoalChange {
  const state = record.planState;
  const decision = pendingStepDecision(record);
  if (!decision) return settle(record, []);
  const answer = {
    outcome: "approved" as const,
    decidedBy: details.decidedBy,
    ...(details.comment === undefined ? {} : { comment: details.comment.slice(0, 2000) }),
  };
  if ("tool" in decision) {
    return settle({ ...record, toolDecision: { ...decision, ...answer }, updatedAt: now.toISOString() }, []);
  }
  if (!state) return settle(record, []);
  return settle(withPlanState(record, { ...state, decision: { ...decision, ...answer } }, now), []);
}

function stopReasonOf(decision: StepDecision | ToolDecision | undefined, why: string): StopReasonInput {
  const what =
    decision && "tool" in decision
      ? `${decision.tool} in ${decision.stepId}`
      : `step ${decision?.stepId ?? "?"}`;
  return {
    kind: "fatal_error",
    detail: decision?.errorName ?? "UnrecoverableStepFailure",
    message: `${what} failed unrecoverably (${decision?.message ?? "no detail"}); ${why}`.slice(0, 2000),
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
