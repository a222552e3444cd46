import { MODEL_ROLES, type ModelRole } from "../models/model-roles";
import * as z from "../zod";

/**
 * How much a model thinks before it answers, as Anthropic's `output_config.effort` names it: the
 * lever that moves the bill most, since thinking is billed as output tokens.
 */
export const THINKING_EFFORTS = ["low", "medium", "high", "xhigh", "max"] as const;
export const ThinkingEffortSchema = /* @__PURE__ */ z.lazySchema(() => z.enum(THINKING_EFFORTS));
export type ThinkingEffort = z.infer<typeof ThinkingEffortSchema>;

/**
 * - `adaptive`: the model decides when and how much to think, at `effort` (every current Claude
 *   model; on a model with manual budgets only, the effort picks the budget);
 * - `lowest`: the least thinking the role's model allows (Claude Sonnet 5.5: `between_tools`;
 *   Claude Haiku 5.5: `disabled`; a model that cannot think less: `adaptive`);
 * - `between_tools`, `disabled`, `enabled` (manual, with `budgetTokens`): Anthropic's own thinking
 *   types, for a model that takes them. Synth and intake refuse a type the role's model rejects.
 */
export const THINKING_MODES = ["adaptive", "lowest", "between_tools", "disabled", "enabled"] as const;
export const ThinkingModeSchema = /* @__PURE__ */ z.lazySchema(() => z.enum(THINKING_MODES));
export type ThinkingMode = z.infer<typeof ThinkingModeSchema>;

/** The smallest manual thinking budget Anthropic's models accept. */
export const MIN_THINKING_BUDGET_TOKENS = 1024;

/** One role's thinking: each field left out takes the next source's (GoalSpec, then config, then default). */
export const ThinkingSettingSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .strictObject({
      mode: z.optional(ThinkingModeSchema).register(z.globalRegistry, {
        description:
          "adaptive (the model decides, at effort), lowest (the least the model allows), or a thinking type the model takes: between_tools, disabled, enabled",
      }),
      effort: z
        .optional(ThinkingEffortSchema)
        .register(z.globalRegistry, { description: "low, medium, high, xhigh or max" }),
      budgetTokens: z
        .optional(z.number().check(z.int(), z.gte(MIN_THINKING_BUDGET_TOKENS), z.lte(128_000)))
        .register(z.globalRegistry, {
          description: "Thinking tokens for mode enabled (manual budget; only models that take one)",
        }),
    })
    .check(
      z.superRefine((setting, context) => {
        if (setting.budgetTokens !== undefined && setting.mode !== "enabled") {
          context.addIssue({
            code: "custom",
            path: ["budgetTokens"],
            message: "is only taken with mode 'enabled' (a manual budget)",
          });
        }
        if (setting.mode === "enabled" && setting.budgetTokens === undefined) {
          context.addIssue({
            code: "custom",
            path: ["budgetTokens"],
            message: "is required with mode 'enabled' (a manual budget)",
          });
        }
      }),
    ),
);
export type ThinkingSetting = z.infer<typeof ThinkingSettingSchema>;

// A function, called by the schema's builder: schemas built at import would cost every cold start.
const roleShape = () =>
  Object.fromEntries(MODEL_ROLES.map((role) => [role, z.optional(ThinkingSettingSchema)])) as Record<
    ModelRole,
    z.ZodMiniOptional<typeof ThinkingSettingSchema>
  >;

/** Thinking per model role (`models.thinking` in the configuration and in a GoalSpec). */
export const ThinkingSettingsSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject(roleShape()).register(z.globalRegistry, {
    description: "Thinking mode and effort per model role; a role left out keeps its default",
  }),
);
export type ThinkingSettings = z.infer<typeof ThinkingSettingsSchema>;
