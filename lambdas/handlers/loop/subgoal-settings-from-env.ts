import { type PATTERNS, PatternSchema } from "../../core/goal/goal-spec";
import { DEFAULT_SUBGOAL_MAX_CHILDREN, DEFAULT_SUBGOAL_MAX_DEPTH } from "../../core/goal/subgoals";
import { parseOrThrow } from "../../core/goal/validation";
import { selectPattern } from "../../core/intake/pattern-selector";
import type { SubgoalSettings } from "../../core/loop/subgoals/plan-children";
import * as z from "../../core/zod";
import { DEFAULT_TOOL_NAMES } from "../../tools/default-tools";
import { listEnv, positiveIntEnv, requiredEnv } from "../handler-environment";

/** What a child's `patternReason` adds when no rule decided: no `select` call is made for a sub-goal. */
const CHILD_FALLBACK_NOTE = "fallback used: a sub-goal's pattern comes from the rules, no model is asked";

/** Pattern → state machine ARN (STATE_MACHINE_ARNS): where a goal of each pattern runs. */
export function stateMachineArnsFromEnv(): Partial<Record<(typeof PATTERNS)[number], string>> {
  return parseOrThrow(
    z.partialRecord(PatternSchema, z.string().check(z.minLength(1))),
    JSON.parse(requiredEnv("STATE_MACHINE_ARNS")),
    "STATE_MACHINE_ARNS",
  );
}

/**
 * The sub-goal bounds of the deployment (SUBGOAL_MAX_DEPTH, SUBGOAL_MAX_CHILDREN from the
 * configuration's `subgoals`), the models a child may name (ALLOWED_MODEL_IDS), and the pattern
 * selector's rules for a child whose pattern is `auto` (no `select` call: the rules' fallback
 * stands, and its reason says so).
 */
export function subgoalSettingsFromEnv(patterns: readonly (typeof PATTERNS)[number][]): SubgoalSettings {
  const allowed = listEnv("ALLOWED_MODEL_IDS");
  return {
    defaultTools: DEFAULT_TOOL_NAMES,
    maxDepth: positiveIntEnv("SUBGOAL_MAX_DEPTH", DEFAULT_SUBGOAL_MAX_DEPTH),
    maxChildren: positiveIntEnv("SUBGOAL_MAX_CHILDREN", DEFAULT_SUBGOAL_MAX_CHILDREN),
    ...(allowed.length === 0 ? {} : { allowedModelIds: allowed }),
    patterns,
    choosePattern: (spec) => {
      const choice = selectPattern(spec);
      return {
        pattern: choice.pattern,
        reason: choice.needsModel ? `${choice.reason}; ${CHILD_FALLBACK_NOTE}` : choice.reason,
      };
    },
  };
}
