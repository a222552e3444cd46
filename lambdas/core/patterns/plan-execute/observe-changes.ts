import { type GoalChange, goalEvent, settle } from "../../goal/goal-change";
import { pause } from "../../goal/goal-lifecycle";
import type { GoalRecord, RevisionType } from "../../goal/goal-record";
import { type PlanState, type PlanStepState, stepById, withPlanState } from "../../goal/plan";
import { sameRun } from "../../goal/run-lineage";
import { clip } from "../../goal/text";
import { isPlanGate, setGate } from "../../loop/gates/action-gate";
import { chain } from "../../loop/update-goal";
import type { StepRecord } from "../../ports/step-log";
import { classifyStep } from "./classify";
import { MAX_STEP_ATTEMPTS } from "./plan-execute-deps";
import { planGate } from "./plan-gate";
import { updateStep } from "./plan-state";
import { type ReplanSettings, requestReplan, strategyForFailedStep } from "./replan";

/** Revisions that change what the goal is: the plan starts over (as does a reconcile that says `restart`). */
const GLOBAL_REVISIONS: ReadonlySet<RevisionType> = new Set(["pivot", "modify_objective", "redirect"]);

function withoutCurrent(state: PlanState): PlanState {
  const { current: _observed, ...rest } = state;
  return rest;
}

/**
 * Classifies the executor's logged step against the plan step it worked on and acts on the outcome:
 * success → done; a recoverable failure → the step runs again (up to MAX_STEP_ATTEMPTS), then a
 * replan; below expectation → a replan (repair, or skip for a non-critical step); new information
 * → the remaining steps are replanned; an unrecoverable failure → a human decision, never a retry.
 */
export function classifyChange(
  record: GoalRecord,
  logged: StepRecord,
  settings: ReplanSettings,
  now: Date,
): GoalChange | undefined {
  const state = record.planState;
  const current = state?.current;
  // The step was logged for the plan step's turn: the same iteration of the same lineage, whichever
  // runs started the step, acted on it and observe it now.
  const matches = current !== undefined && sameRun(record, current, logged);
  const step = matches && state ? stepById(state, current.stepId) : undefined;
  if (!state || !step) return undefined;
  const { outcome, errorName, detail } = classifyStep(step, logged);
  const result = clip(errorName ? `${errorName}: ${detail}` : detail, 600);
  const retry = outcome === "recoverable_failure" && step.attempts < MAX_STEP_ATTEMPTS;
  const status: PlanStepState["status"] = outcome === "success" ? "done" : retry ? "pending" : "failed";
  const observed = withoutCurrent(
    updateStep(state, step.id, (s) => ({ ...s, status, lastResult: outcome, result })),
  );
  const sinceReplan =
    outcome === "success" && observed.sinceReplan
      ? { ...observed.sinceReplan, succeeded: true }
      : observed.sinceReplan;
  const decision =
    outcome === "unrecoverable_failure"
      ? {
          decision: {
            stepId: step.id,
            errorName: errorName ?? "UnrecoverableStepFailure",
            message: clip(detail, 1000),
            outcome: "pending" as const,
          },
        }
      : {};
  const next = withPlanState(
    record,
    { ...observed, ...(sinceReplan ? { sinceReplan } : {}), ...decision },
    now,
  );
  const event = goalEvent(next, "plan.step.observed", now, {
    stepId: step.id,
    outcome,
    errorName: errorName ?? null,
    attempt: step.attempts,
    retry,
    detail: clip(detail, 300),
  });
  const replan = (() => {
    if (outcome === "new_information") {
      return { trigger: "new_information" as const, strategy: "replace_subplan" as const };
    }
    if (outcome === "below_expectation") {
      return { trigger: "below_expectation" as const, strategy: strategyForFailedStep(step) };
    }
    if (outcome === "recoverable_failure" && !retry) {
      return { trigger: "failed_step" as const, strategy: strategyForFailedStep(step) };
    }
    return undefined;
  })();
  return chain(
    next,
    (current) => settle(current, [event]),
    (current) =>
      replan
        ? requestReplan(
            current,
            { ...replan, stepIds: [step.id], reason: `step ${step.id} ended ${outcome}: ${result}` },
            settings,
            now,
          )
        : undefined,
  );
}

/**
 * A human's answer on the plan gate: approved → the plan runs; rejected → a global replan with
 * the human's comment; expired → the goal pauses (an unapproved plan never runs; a resume asks again).
 */
export function consumePlanGate(
  record: GoalRecord,
  settings: ReplanSettings,
  now: Date,
): GoalChange | undefined {
  const gate = record.actionGate;
  const state = record.planState;
  if (!gate || !isPlanGate(gate) || gate.outcome === "pending" || !state) return undefined;
  const cleared: GoalRecord = { ...record, actionGate: null, updatedAt: now.toISOString() };
  if (gate.outcome === "approved") {
    const next = { ...cleared, planState: { ...state, needsApproval: false } };
    return settle(next, [
      goalEvent(next, "plan.approved", now, { version: state.version, decidedBy: gate.decidedBy ?? null }),
    ]);
  }
  if (gate.outcome === "expired") {
    return pause(
      cleared,
      {
        kind: "policy",
        detail: "PlanApprovalExpired",
        message: `nobody approved plan v${state.version} before the approval request expired; resume the goal to ask again`,
      },
      now,
    );
  }
  const next = { ...cleared, planState: { ...state, needsApproval: false } };
  const comment = gate.comment ? `: ${gate.comment}` : " (no comment)";
  return chain(
    next,
    (current) =>
      settle(current, [
        goalEvent(current, "plan.rejected", now, {
          version: state.version,
          decidedBy: gate.decidedBy ?? null,
        }),
      ]),
    (current) =>
      requestReplan(
        current,
        {
          trigger: "plan_rejected",
          strategy: "global",
          stepIds: [],
          reason: `${gate.decidedBy ?? "a human"} rejected plan v${state.version}${comment}`,
        },
        settings,
        now,
      ),
  );
}

/** An approved step decision: replan the remaining steps around the step that cannot be done. */
export function consumeDecision(
  record: GoalRecord,
  settings: ReplanSettings,
  now: Date,
): GoalChange | undefined {
  const state = record.planState;
  const decision = state?.decision;
  if (!state || decision?.outcome !== "approved") return undefined;
  const { decision: _consumed, ...rest } = state;
  const comment = decision.comment ? `: ${decision.comment}` : "";
  return chain(withPlanState(record, rest, now), (current) =>
    requestReplan(
      current,
      {
        trigger: "decision_approved",
        strategy: "replace_subplan",
        stepIds: [decision.stepId],
        reason: `step ${decision.stepId} cannot be done (${decision.errorName}: ${decision.message}); ${decision.decidedBy ?? "a human"} approved replanning around it${comment}`,
      },
      settings,
      now,
    ),
  );
}

/**
 * A human revision applied since the plan was made: a restart, pivot, new objective or redirect
 * replans globally, any other revision replaces the remaining steps.
 */
export function noticeRevisions(
  record: GoalRecord,
  settings: ReplanSettings,
  now: Date,
): GoalChange | undefined {
  const state = record.planState;
  // A new objective waiting for its checks: replanned once, when the contract is confirmed.
  if (!state || record.revision <= state.revisionSeen || record.contractProposal) return undefined;
  const seen = withPlanState(record, { ...state, revisionSeen: record.revision }, now);
  // Before the first plan there is nothing to replan: the plan call reads the revised goal.
  if (state.version === 0) return settle(seen, []);
  const applied = record.revisionLog.filter((entry) => entry.revision > state.revisionSeen);
  // Injected context is information for the next prompts, not a reason to replan (DESIGN §5).
  if (applied.every((entry) => entry.type === "inject_context")) return settle(seen, []);
  const global = applied.some((entry) => entry.reconcile?.restart || GLOBAL_REVISIONS.has(entry.type));
  return chain(seen, (current) =>
    requestReplan(
      current,
      {
        trigger: "human_revision",
        strategy: global ? "global" : "replace_subplan",
        stepIds: [],
        reason: applied.map((entry) => `${entry.type} by ${entry.requestedBy}: ${entry.content}`).join("\n"),
      },
      settings,
      now,
    ),
  );
}

/**
 * A step started in an earlier lineage whose turn never ran (its run ended, and a continue-as-new or
 * a resume started the count again) goes back to pending. A step of the current lineage is the
 * current run's own, however many runs took it over: its turn runs, or ran, once.
 */
export function resetStaleStep(record: GoalRecord, now: Date): GoalChange | undefined {
  const state = record.planState;
  const current = state?.current;
  if (!state || !current || sameRun(record, current, { runId: record.runId })) return undefined;
  const reset = updateStep(state, current.stepId, (step) =>
    step.status === "running" ? { ...step, status: "pending" } : step,
  );
  return settle(withPlanState(record, withoutCurrent(reset), now), []);
}

/** Asks for the plan approval again when no gate of this run waits for it (a resumed goal). */
export function askPlanApproval(record: GoalRecord, now: Date): GoalChange | undefined {
  const state = record.planState;
  const gate = record.actionGate;
  if (!state?.needsApproval) return undefined;
  if (isPlanGate(gate) && gate?.outcome === "pending" && sameRun(record, gate, { runId: record.runId }))
    return undefined;
  return setGate(record, planGate({ runId: record.runId, iteration: record.runIteration }, state), now);
}
