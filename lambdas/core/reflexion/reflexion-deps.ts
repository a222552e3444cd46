import type { ModelTiers } from "../model-tiers";

/** Settings from the Reflexion handlers' environment. */
export interface ReflexionSettings {
  /** The deployment's heavy and fast models (env HEAVY_MODEL_ID / FAST_MODEL_ID), by role tier. */
  readonly models: ModelTiers;
  /** Tools a goal may use when its GoalSpec names none (the tool runner's default set). */
  readonly defaultTools: readonly string[];
  /** A run continues as new once it has done this many iterations (env CONTINUE_AS_NEW_AFTER). */
  readonly continueAsNewAfter: number;
}
