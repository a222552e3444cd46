import { ValidationError } from "../goal/errors";
import type { GoalSpec } from "../goal/goal-spec";
import type {
  ThinkingEffort,
  ThinkingMode,
  ThinkingSetting,
  ThinkingSettings,
} from "../goal/thinking-settings";
import { THINKING_EFFORTS } from "../goal/thinking-settings";
import type { ModelRequest, ThinkingRequest } from "../ports/model-client";
import type { ModelRole } from "./model-roles";
import { type ModelTiers, modelIdFor } from "./model-tiers";

/** A thinking type as Anthropic's API names it (`thinking.type`). */
type ThinkingType = "adaptive" | "between_tools" | "disabled" | "enabled";

/** What one family of models takes as thinking settings, and where that rule comes from. */
export interface ThinkingFamily {
  readonly name: string;
  /** The thinking types the model takes; any other is a 400. */
  readonly types: readonly ThinkingType[];
  /** What mode `lowest` sends; `none`: nothing (the model does not think unless asked). */
  readonly lowest: ThinkingType | "none";
  /** Whether it takes `output_config.effort`. Without, `adaptive` thinks with a budget picked by effort. */
  readonly effort: boolean;
  /** The highest effort it takes `disabled` with (Claude Haiku 5.5: high). */
  readonly disabledUpTo?: ThinkingEffort;
  /** Whether it omits its thinking's text unless `thinking.display` asks for the summary. */
  readonly display: boolean;
  /** The documents the rule is taken from (docs/configuration.md lists them). */
  readonly source: string;
}

const SONNET_5_5_RULES = {
  types: ["adaptive", "between_tools"],
  lowest: "between_tools",
  effort: true,
  display: true,
} as const;

export const CLAUDE_SONNET_5_5_THINKING: ThinkingFamily = {
  name: "Claude Sonnet 5.5",
  ...SONNET_5_5_RULES,
  source:
    "Anthropic, What's new in Claude Sonnet 5.5 (thinking.type adaptive or between_tools; disabled is a 400; display omitted by default)",
};

export const CLAUDE_OPUS_5_5_THINKING: ThinkingFamily = {
  name: "Claude Opus 5.5",
  types: ["adaptive"],
  lowest: "adaptive",
  effort: true,
  display: true,
  source:
    "Anthropic models overview (Opus 5.5: adaptive thinking, always on); OpenRouter's Claude 5.5 migration guide",
};

export const CLAUDE_HAIKU_5_5_THINKING: ThinkingFamily = {
  name: "Claude Haiku 5.5",
  types: ["adaptive", "disabled"],
  lowest: "disabled",
  effort: true,
  disabledUpTo: "high",
  display: true,
  source:
    "Anthropic, What's new in Claude Haiku 5.5 (adaptive thinking and effort; manual budgets are an error; display omitted by default); thinking disabled only at effort high or lower: API易 Claude thinking guide, 2026-11",
};

/** Claude 4 and 4.5 models: thinking off unless asked, with a manual budget only. */
export const CLAUDE_4_BUDGET_THINKING: ThinkingFamily = {
  name: "Claude 4/4.5 (manual thinking budget)",
  types: ["enabled", "disabled"],
  lowest: "none",
  effort: false,
  display: false,
  source:
    "Amazon Bedrock user guide, Adaptive thinking (older models such as Claude Sonnet 4.5 do not support adaptive thinking and require thinking.type enabled with budget_tokens)",
};

/** The local Bedrock endpoint's scripted models behave like the default heavy model, strictly. */
export const LOCAL_ENDPOINT_THINKING: ThinkingFamily = {
  name: "the local Bedrock endpoint (scripted models behave like Claude Sonnet 5.5)",
  ...SONNET_5_5_RULES,
  source: "lib/local/bedrock/claude-request-rules.ts",
};

/** Which family a model id belongs to: a fragment of its id (profile prefixes and ARNs included). */
const FAMILIES: readonly (readonly [RegExp, ThinkingFamily])[] = [
  [/^(scripted|local):/, LOCAL_ENDPOINT_THINKING],
  [/anthropic\.claude-sonnet-5-5/, CLAUDE_SONNET_5_5_THINKING],
  [/anthropic\.claude-opus-5-5/, CLAUDE_OPUS_5_5_THINKING],
  [/anthropic\.claude-haiku-5-5/, CLAUDE_HAIKU_5_5_THINKING],
  [/anthropic\.claude-(haiku-4-5|sonnet-4-5|sonnet-4-2|opus-4-1)/, CLAUDE_4_BUDGET_THINKING],
];

/** The thinking rules of `modelId`, or undefined when goal-loops knows none (then it sends no setting). */
export function thinkingFamilyOf(modelId: string): ThinkingFamily | undefined {
  return FAMILIES.find(([pattern]) => pattern.test(modelId))?.[1];
}

/**
 * Each role's default, set on purpose: `high` where the loop decides (reason, plan, reflect, judge,
 * evaluate) and for `attempt` (the attempt is the work the evaluator grades); `low` where it
 * transcribes (summarize, select, reconcile); `medium` for `execute`, which carries out a step the
 * plan already decided but must still notice when the plan no longer fits. docs/configuration.md
 * gives the reasons.
 */
export const DEFAULT_THINKING: Readonly<
  Record<ModelRole, Required<Pick<ThinkingSetting, "mode" | "effort">>>
> = {
  reason: { mode: "adaptive", effort: "high" },
  plan: { mode: "adaptive", effort: "high" },
  execute: { mode: "adaptive", effort: "medium" },
  attempt: { mode: "adaptive", effort: "high" },
  evaluate: { mode: "adaptive", effort: "high" },
  reflect: { mode: "adaptive", effort: "high" },
  judge: { mode: "adaptive", effort: "high" },
  reconcile: { mode: "adaptive", effort: "low" },
  summarize: { mode: "adaptive", effort: "low" },
  select: { mode: "adaptive", effort: "low" },
};

/**
 * Output tokens a call may spend thinking at each effort, on top of its answer's bound: the call's
 * `maxTokens` is the sum, so a thinking turn is not cut short, and `maxCostUsd`'s worst case prices
 * the whole ceiling. A turn that reaches it stops with `max_tokens`.
 */
export const THINKING_ALLOWANCE_TOKENS: Readonly<Record<ThinkingEffort, number>> = {
  low: 2048,
  medium: 4096,
  high: 8192,
  xhigh: 16_384,
  max: 32_768,
};

/** The manual budget `adaptive` picks on a model without adaptive thinking; none (thinking off) at low. */
const BUDGET_FOR_EFFORT: Readonly<Record<ThinkingEffort, number | undefined>> = {
  low: undefined,
  medium: 2048,
  high: 4096,
  xhigh: 8192,
  max: 16_384,
};

/** One role's thinking with every field decided. */
export interface ResolvedThinkingSetting {
  readonly mode: ThinkingMode;
  readonly effort: ThinkingEffort;
  readonly budgetTokens?: number;
}

/**
 * One role's thinking, field by field: the GoalSpec's, else the deployment's configuration, else
 * the default. A manual budget comes with the mode that asks for it.
 */
export function thinkingSettingFor(
  role: ModelRole,
  goal: ThinkingSettings | undefined,
  deployment: ThinkingSettings | undefined,
): ResolvedThinkingSetting {
  const [fromGoal, fromDeployment, fallback] = [goal?.[role], deployment?.[role], DEFAULT_THINKING[role]];
  const modeSource = fromGoal?.mode ? fromGoal : fromDeployment?.mode ? fromDeployment : undefined;
  const mode = modeSource?.mode ?? fallback.mode;
  const effort = fromGoal?.effort ?? fromDeployment?.effort ?? fallback.effort;
  const budgetTokens = mode === "enabled" ? modeSource?.budgetTokens : undefined;
  return budgetTokens === undefined ? { mode, effort } : { mode, effort, budgetTokens };
}

/** A setting the model refuses, by the field to blame. */
export interface ThinkingProblem {
  readonly field: "mode" | "effort" | "budgetTokens";
  readonly message: string;
}

const rank = (effort: ThinkingEffort) => THINKING_EFFORTS.indexOf(effort);

/** The thinking type a mode sends to `family` (`none`: nothing). */
function typeFor(family: ThinkingFamily, setting: ResolvedThinkingSetting): ThinkingType | "none" {
  if (setting.mode === "lowest") return family.lowest;
  if (setting.mode === "adaptive") {
    if (family.effort) return "adaptive";
    return BUDGET_FOR_EFFORT[setting.effort] === undefined ? "none" : "enabled";
  }
  return setting.mode;
}

/**
 * Why `modelId` would answer 400 to `setting`, or undefined when it takes it. `explicit` says whether
 * anyone set the role's thinking: a model whose rules goal-loops does not know gets no setting by
 * default, and refuses one given on purpose (the request would carry what nobody checked).
 */
export function thinkingProblem(
  modelId: string,
  setting: ResolvedThinkingSetting,
  explicit: boolean,
): ThinkingProblem | undefined {
  const family = thinkingFamilyOf(modelId);
  if (family === undefined) {
    return explicit
      ? {
          field: "mode",
          message: `goal-loops knows no thinking settings for '${modelId}' (lambdas/core/models/model-thinking.ts): leave it unset for this model`,
        }
      : undefined;
  }
  const type = typeFor(family, setting);
  const named = setting.mode === "lowest" ? `'lowest' (${type})` : `'${setting.mode}'`;
  if (type !== "none" && type !== "adaptive" && !family.types.includes(type)) {
    const takes = ["adaptive", "lowest", ...family.types.filter((taken) => taken !== "adaptive")];
    return {
      field: "mode",
      message: `${named} is refused by ${family.name} ('${modelId}'), which takes ${takes.join(", ")} (${family.source})`,
    };
  }
  if (type === "disabled" && family.disabledUpTo && rank(setting.effort) > rank(family.disabledUpTo)) {
    return {
      field: "effort",
      message: `'${setting.effort}' with thinking disabled is refused by ${family.name}, which turns thinking off only at effort ${family.disabledUpTo} or lower (${family.source})`,
    };
  }
  return undefined;
}

/** A model call's thinking: what the request sends, and the output it may spend on it. */
export interface ThinkingPlan {
  readonly request?: ThinkingRequest;
  /** Added to the answer's bound to make the call's `maxTokens`. */
  readonly allowanceTokens: number;
}

/**
 * What a call to `modelId` sends for `setting`, in the family's terms: `adaptive` (with effort and a
 * request for the thinking's summary on models that omit it), `between_tools`, `disabled`, or a
 * manual budget; nothing for a model whose rules are unknown. Throws a ValidationError naming
 * `models.thinking.<role>.<field>` for a setting the model refuses (synth and intake refuse it
 * first; this guards what reaches a request).
 */
export function thinkingPlan(
  modelId: string,
  role: ModelRole,
  setting: ResolvedThinkingSetting,
): ThinkingPlan {
  const family = thinkingFamilyOf(modelId);
  if (family === undefined) return { allowanceTokens: 0 };
  const problem = thinkingProblem(modelId, setting, true);
  if (problem) {
    const path = `models.thinking.${role}.${problem.field}`;
    throw new ValidationError(`${path}: ${problem.message}`, [{ path, message: problem.message }]);
  }
  const { effort } = setting;
  const type = typeFor(family, setting);
  switch (type) {
    case "none":
      return { allowanceTokens: 0 };
    case "adaptive":
    case "between_tools":
      return {
        request: { type, effort, summarized: family.display },
        allowanceTokens: THINKING_ALLOWANCE_TOKENS[effort],
      };
    case "disabled":
      return { request: family.effort ? { type, effort } : { type }, allowanceTokens: 0 };
    case "enabled": {
      const budgetTokens = setting.budgetTokens ?? BUDGET_FOR_EFFORT[effort] ?? 0;
      return { request: { type, budgetTokens }, allowanceTokens: budgetTokens };
    }
  }
}

/** The model a role's call goes to, and how it thinks there. */
export interface ModelChoice {
  readonly modelId: string;
  readonly thinking: ThinkingPlan;
}

/**
 * The model for `role` (the GoalSpec's override, else its tier's) and its thinking: the GoalSpec's
 * `models.thinking`, else the deployment's (`tiers.thinking`), else the role's default.
 */
export function modelFor(spec: Pick<GoalSpec, "models">, role: ModelRole, tiers: ModelTiers): ModelChoice {
  const modelId = modelIdFor(spec, role, tiers);
  const setting = thinkingSettingFor(role, spec.models?.thinking, tiers.thinking);
  return { modelId, thinking: thinkingPlan(modelId, role, setting) };
}

/**
 * A request's output ceiling and thinking: `answerTokens` (the role's own bound) plus what the
 * call may spend thinking, and the thinking to send (none for a model whose rules are unknown).
 */
export function thinkingFields(
  choice: ModelChoice,
  answerTokens: number,
): Pick<ModelRequest, "maxTokens" | "thinking"> {
  const { request, allowanceTokens } = choice.thinking;
  return { maxTokens: answerTokens + allowanceTokens, ...(request ? { thinking: request } : {}) };
}
