import type { Pattern } from "../goal/goal-spec";
import type { ModelRole } from "../models/model-roles";

/**
 * The model role whose turn Act runs, per pattern: the turn's tool calls are what a step does, and
 * the turn's checkpoint (goal, run, iteration, this role) is what Act and the approval gate bind to.
 */
export const ACTING_ROLE: Readonly<Record<Pattern, ModelRole>> = {
  react: "reason",
  plan_execute: "execute",
  reflexion: "attempt",
};
