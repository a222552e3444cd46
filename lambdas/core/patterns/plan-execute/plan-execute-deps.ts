import type { LoopSettings } from "../../loop/loop-deps";
import type { ReplanSettings } from "./replan";

/** Settings from the plan_execute handlers' environment: every loop's settings (default tools, model tiers — plan on heavy, execute and judge on fast — and continue-as-new) plus the replan cooldown. */
export interface PlanExecuteSettings extends ReplanSettings, LoopSettings {}

/** The cooldown before a replan that follows a replan without a successful step (env REPLAN_COOLDOWN_SECONDS). */
export const DEFAULT_REPLAN_COOLDOWN_SECONDS = 30;

/** How often one plan step runs when it fails recoverably (timeouts, throttling, a bad call) before a replan. */
export const MAX_STEP_ATTEMPTS = 2;
