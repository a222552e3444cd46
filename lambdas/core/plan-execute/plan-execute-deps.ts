import type { ModelTiers } from "../model-tiers";
import type { ReplanSettings } from "./replan";

/** Settings from the plan_execute handlers' environment. */
export interface PlanExecuteSettings extends ReplanSettings {
  /** Tools a goal may use when its GoalSpec names none (the tool runner's default set). */
  readonly defaultTools: readonly string[];
  /** The heavy (plan) and fast (execute, judge) models for roles the GoalSpec does not name. */
  readonly models: ModelTiers;
  /** A run continues as new once it has done this many iterations (env CONTINUE_AS_NEW_AFTER). */
  readonly continueAsNewAfter: number;
}

/** The cooldown before a replan that follows a replan without a successful step (env REPLAN_COOLDOWN_SECONDS). */
export const DEFAULT_REPLAN_COOLDOWN_SECONDS = 30;

/** How often one plan step runs when it fails recoverably (timeouts, throttling, a bad call) before a replan. */
export const MAX_STEP_ATTEMPTS = 2;
