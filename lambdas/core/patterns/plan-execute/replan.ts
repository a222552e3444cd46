import { type GoalChange, goalEvent, settle } from "../../goal/goal-change";
import type { GoalRecord } from "../../goal/goal-record";
import { recordReplan } from "../../goal/limits";
import {
  MAX_PLAN_STEPS,
  type PlanState,
  type PlanStep,
  type PlanStepState,
  REPLAN_STRATEGIES,
  type ReplanStrategy,
  type ReplanTrigger,
  withPlanState,
} from "../../goal/plan";
import { clip } from "../../goal/text";
import { chain } from "../../loop/update-goal";
import { newStepState, withDependents } from "./plan-state";

/** A replan as a trigger asks for it. */
export interface ReplanAsk {
  readonly trigger: ReplanTrigger;
  readonly strategy: ReplanStrategy;
  readonly stepIds: readonly string[];
  readonly reason: string;
}

export interface ReplanSettings {
  /** The wait before a replan that follows a replan without any successful step (env REPLAN_COOLDOWN_SECONDS). */
  readonly replanCooldownSeconds: number;
}

/** The strategy for a step that failed or fell short: skip what the goal can do without, else repair it. */
export function strategyForFailedStep(step: Pick<PlanStep, "critical">): ReplanStrategy {
  return step.critical ? "repair" : "skip";
}

function broader(a: ReplanStrategy, b: ReplanStrategy): ReplanStrategy {
  return REPLAN_STRATEGIES.indexOf(a) >= REPLAN_STRATEGIES.indexOf(b) ? a : b;
}

/**
 * Asks for a replan: counts it (`recordReplan`, which `checkLimits` weighs against `maxReplans`) and
 * records it as pending for Plan, with a cooldown when the previous replan saw no successful step
 * (a replan storm slows down before the limit stops it). A request while one is still pending is
 * merged into it — the broader strategy wins — and not counted again.
 */
export function requestReplan(
  record: GoalRecord,
  ask: ReplanAsk,
  settings: ReplanSettings,
  now: Date,
): GoalChange {
  const state = record.planState;
  if (!state) return settle(record, []);
  const stepIds = [...new Set(ask.stepIds)].slice(0, MAX_PLAN_STEPS);
  const pending = state.pending;
  if (pending) {
    const strategy = broader(pending.strategy, ask.strategy);
    const merged = {
      ...pending,
      strategy,
      trigger: strategy === pending.strategy ? pending.trigger : ask.trigger,
      stepIds: [...new Set([...pending.stepIds, ...stepIds])].slice(0, MAX_PLAN_STEPS),
      reason: clip(`${pending.reason}\n${ask.reason}`, 2000),
    };
    const next = withPlanState(record, { ...state, pending: merged }, now);
    return settle(next, [
      goalEvent(next, "replan.merged", now, { trigger: ask.trigger, strategy, stepIds: merged.stepIds }),
    ]);
  }
  const cooled = ask.strategy !== "skip" && state.sinceReplan !== undefined && !state.sinceReplan.succeeded;
  const cooldownSeconds = cooled ? settings.replanCooldownSeconds : 0;
  const at = now.toISOString();
  const ids = stepIds.length > 0 ? ` [${stepIds.join(", ")}]` : "";
  return chain(
    record,
    (next) => recordReplan(next, clip(`${ask.trigger} → ${ask.strategy}${ids}: ${ask.reason}`, 2000), now),
    (next) => {
      const planState: PlanState = {
        ...state,
        pending: { ...ask, stepIds, reason: clip(ask.reason, 2000), cooldownSeconds, requestedAt: at },
        sinceReplan: { at, succeeded: false },
      };
      const cooling = withPlanState(next, planState, now);
      // Storm control made visible: the run waits this long before the plan call.
      return settle(
        cooling,
        cooldownSeconds > 0
          ? [goalEvent(cooling, "replan.cooldown", now, { cooldownSeconds, trigger: ask.trigger })]
          : [],
      );
    },
  );
}

/** The steps a strategy replaces: the planner's answer takes their place. */
export function replacedStepIds(
  state: PlanState,
  strategy: ReplanStrategy,
  stepIds: readonly string[],
): string[] {
  switch (strategy) {
    case "global":
      return state.steps.map((step) => step.id);
    case "replace_subplan":
      return state.steps
        .filter((step) => step.status !== "done" && step.status !== "skipped")
        .map((step) => step.id);
    case "repair":
      return stepIds[0] === undefined ? [] : withDependents(state.steps, stepIds[0]);
    case "skip":
      return [];
  }
}

/**
 * The plan after the planner's answer: the replaced steps give way to the new ones (a repair puts
 * them where the failed step was; a sub-plan goes after the finished steps; a global plan is all
 * new). Kept steps keep their status and results.
 */
export function mergePlan(
  state: PlanState,
  replaced: readonly string[],
  answer: readonly PlanStep[],
): PlanStepState[] {
  const gone = new Set(replaced);
  const fresh = answer.map(newStepState);
  const firstGone = state.steps.findIndex((step) => gone.has(step.id));
  const kept = state.steps.filter((step) => !gone.has(step.id));
  if (firstGone < 0) return [...kept, ...fresh];
  const before = state.steps.slice(0, firstGone).filter((step) => !gone.has(step.id)).length;
  return [...kept.slice(0, before), ...fresh, ...kept.slice(before)];
}
