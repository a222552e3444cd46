import type { GoalSpec, Pattern } from "../goal/goal-spec";

export interface PatternChoice {
  readonly pattern: Pattern;
  /** The rule that decided, recorded on the goal (`patternReason`) and in `goal.created`. */
  readonly reason: string;
  /** True when no rule applies: the `select` model role decides; `pattern` is the fallback meanwhile. */
  readonly needsModel: boolean;
}

/** At or above this many success checks a goal is complex enough to plan first. */
export const COMPLEX_CHECKS = 5;
/** At or above this many scope entries a goal is complex enough to plan first. */
export const COMPLEX_SCOPE = 3;

type SelectedSpec = Pick<GoalSpec, "pattern" | "hints" | "successChecks" | "scope">;

const choice = (pattern: Pattern, reason: string, needsModel = false): PatternChoice => ({
  pattern,
  reason,
  needsModel,
});

/**
 * Chooses the loop pattern (DESIGN §2). An explicit pattern wins; for `auto` the rules apply in this
 * order: known procedure → plan_execute; exploratory → react; quality-critical → reflexion;
 * complex → plan_execute; no hints at all → the `select` role decides (react until then); else react.
 */
export function selectPattern(spec: SelectedSpec): PatternChoice {
  if (spec.pattern !== "auto") return choice(spec.pattern, "requested");
  const hints = spec.hints ?? {};
  if (hints.procedure === true || Array.isArray(hints.procedure))
    return choice("plan_execute", "known procedure");
  if (hints.exploratory) return choice("react", "exploratory");
  if (hints.qualityCritical) return choice("reflexion", "quality-critical");
  const checks = spec.successChecks.length;
  const scope = spec.scope?.length ?? 0;
  if (checks >= COMPLEX_CHECKS || scope >= COMPLEX_SCOPE) {
    return choice("plan_execute", `complex: ${checks} success checks, ${scope} scope entries`);
  }
  const noHints = Object.values(hints).every((value) => value === undefined);
  if (noHints) return choice("react", "no hints: the select role decides, react until then", true);
  return choice("react", "default");
}
