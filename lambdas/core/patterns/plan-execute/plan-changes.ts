import { type GoalChange, goalEvent, settle } from "../../goal/goal-change";
import type { GoalRecord } from "../../goal/goal-record";
import { KEPT_REPLANS, type PlanState, type PlanStepState, type ReplanStrategy } from "../../goal/plan";
import { clip } from "../../goal/text";
import { setGate } from "../../loop/gates/action-gate";
import type { RunPosition } from "../../loop/step-result";
import { chain } from "../../loop/update-goal";
import type { ToolSpec } from "../../ports/model-client";
import type { PlanExecuteSettings } from "./plan-execute-deps";
import { planGate } from "./plan-gate";
import type { ParsedPlan } from "./plan-prompt";
import { issueLines, PlanSchema } from "./plan-schema";
import { updateStep } from "./plan-state";
import { mergePlan, replacedStepIds, requestReplan } from "./replan";

/** What the request being served asks for: the strategy and the steps its answer replaces. */
export interface Assignment {
  readonly strategy: ReplanStrategy;
  readonly replaced: readonly string[];
}

export function assignment(state: PlanState): Assignment {
  if (state.version === 0 || !state.pending) return { strategy: "global", replaced: [] };
  const { strategy, stepIds } = state.pending;
  return { strategy, replaced: replacedStepIds(state, strategy, stepIds) };
}

/**
 * The merged plan, or what is wrong with it: the planner's steps must parse, the merged plan must be
 * runnable (unique ids, existing dependencies, no cycles) and name only granted tools.
 */
export function judgePlan(
  state: PlanState,
  replaced: readonly string[],
  parsed: ParsedPlan,
  tools: readonly ToolSpec[],
): { ok: true; steps: PlanStepState[] } | { ok: false; issues: string[] } {
  if (!parsed.ok) return parsed;
  const steps = mergePlan(state, replaced, parsed.steps);
  const structure = PlanSchema.safeParse({ steps });
  const granted = new Set(tools.map((tool) => tool.name));
  const issues = [
    ...(structure.success ? [] : issueLines(structure.error)),
    ...steps.flatMap((step, index) =>
      step.tool !== undefined && !granted.has(step.tool)
        ? [
            `steps.${index}.tool: tool '${step.tool}' is not granted to this goal (granted: ${[...granted].join(", ") || "none"})`,
          ]
        : [],
    ),
  ];
  return issues.length > 0 ? { ok: false, issues } : { ok: true, steps };
}

function served(state: PlanState): PlanState {
  const { pending: _served, invalidIssues: _fixed, current: _gone, ...rest } = state;
  return { ...rest, served: state.served + 1 };
}

/**
 * A valid plan becomes the current one (version + 1): `plan.created` for the first, `plan.revised`
 * with the strategy for a replan. The first plan and a global replan wait for a human when the
 * GoalSpec's `approval.requireFor` lists "plan".
 */
export function adoptPlan(
  record: GoalRecord,
  steps: PlanStepState[],
  assigned: Assignment,
  position: RunPosition,
  now: Date,
): GoalChange {
  const state = record.planState;
  if (!state) return settle(record, []);
  const version = state.version + 1;
  const pending = state.pending;
  const at = now.toISOString();
  const needsApproval =
    record.spec.approval.requireFor.includes("plan") && (version === 1 || assigned.strategy === "global");
  const history =
    version > 1 && pending
      ? [
          ...state.history,
          { version, trigger: pending.trigger, strategy: assigned.strategy, stepIds: pending.stepIds, at },
        ].slice(-KEPT_REPLANS)
      : state.history;
  // A decision about a step the new plan replaced is moot: the step is gone.
  const { decision, ...rest } = served(state);
  const decided = decision && steps.some((step) => step.id === decision.stepId && step.status === "failed");
  const planState: PlanState = {
    ...rest,
    ...(decided ? { decision } : {}),
    version,
    steps,
    needsApproval,
    revisionSeen: record.revision,
    history,
  };
  const next: GoalRecord = { ...record, planState, updatedAt: at };
  const stepIds = steps.map((step) => step.id);
  const event =
    version === 1
      ? goalEvent(next, "plan.created", now, {
          version,
          strategy: "global",
          trigger: pending?.trigger ?? "initial",
          steps: stepIds,
          needsApproval,
        })
      : goalEvent(next, "plan.revised", now, {
          version,
          strategy: assigned.strategy,
          trigger: pending?.trigger ?? "initial",
          stepIds: pending?.stepIds ?? [],
          replaced: [...assigned.replaced],
          steps: stepIds,
          needsApproval,
        });
  return chain(
    next,
    (current) => settle(current, [event]),
    (current) => (needsApproval ? setGate(current, planGate(position, planState), now) : undefined),
  );
}

/**
 * An invalid answer is a recorded recoverable failure, never an empty plan: `plan.invalid` names
 * the issues, the next plan prompt shows them, and the retry counts as a replan (with its cooldown).
 */
export function rejectPlan(
  record: GoalRecord,
  issues: readonly string[],
  settings: PlanExecuteSettings,
  now: Date,
): GoalChange {
  const state = record.planState;
  if (!state) return settle(record, []);
  const kept = issues.slice(0, 10).map((issue) => clip(issue, 300));
  const next: GoalRecord = {
    ...record,
    planState: { ...served(state), invalidIssues: kept },
    updatedAt: now.toISOString(),
  };
  const pending = state.pending;
  return chain(
    next,
    (current) =>
      settle(current, [
        goalEvent(current, "plan.invalid", now, {
          issues: kept,
          version: state.version,
          strategy: pending?.strategy ?? "global",
        }),
      ]),
    (current) =>
      requestReplan(
        current,
        {
          trigger: "invalid_plan",
          strategy: pending?.strategy ?? "global",
          stepIds: pending?.stepIds ?? [],
          reason: `the plan answer was invalid: ${kept.join("; ")}`,
        },
        settings,
        now,
      ),
  );
}

/** `skip`: a failed non-critical step is marked skipped and its dependents go on without it; no model call. */
export function skipStep(record: GoalRecord, now: Date): GoalChange {
  const state = record.planState;
  const pending = state?.pending;
  const stepId = pending?.stepIds[0];
  if (!state || !pending || stepId === undefined) return settle(record, []);
  const version = state.version + 1;
  const at = now.toISOString();
  const skipped = updateStep(state, stepId, (step) => ({ ...step, status: "skipped" }));
  const planState: PlanState = {
    ...served(skipped),
    version,
    history: [
      ...state.history,
      { version, trigger: pending.trigger, strategy: "skip" as const, stepIds: [stepId], at },
    ].slice(-KEPT_REPLANS),
  };
  const next: GoalRecord = { ...record, planState, updatedAt: at };
  return settle(next, [
    goalEvent(next, "plan.revised", now, {
      version,
      strategy: "skip",
      trigger: pending.trigger,
      stepIds: [stepId],
      replaced: [],
      steps: planState.steps.map((step) => step.id),
      needsApproval: false,
    }),
  ]);
}
