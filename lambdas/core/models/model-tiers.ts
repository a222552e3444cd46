import type { GoalSpec } from "../goal/goal-spec";
import type { ThinkingSettings } from "../goal/thinking-settings";
import { parseOrThrow } from "../goal/validation";
import * as z from "../zod";
import { MODEL_ROLES, type ModelRole } from "./model-roles";
import tierFile from "./model-tiers.json" with { type: "json" };

export const MODEL_TIERS = ["heavy", "fast"] as const;
export type ModelTier = (typeof MODEL_TIERS)[number];

const TierFileSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    $comment: z.optional(z.string()),
    roles: z.object(
      Object.fromEntries(MODEL_ROLES.map((role) => [role, z.enum(MODEL_TIERS)])) as Record<
        ModelRole,
        z.ZodMiniEnum<{ heavy: "heavy"; fast: "fast" }>
      >,
    ),
  }),
);

/** The tier of every role, from model-tiers.json (checked once when the module loads). */
export const ROLE_TIERS: Readonly<Record<ModelRole, ModelTier>> = parseOrThrow(
  TierFileSchema,
  tierFile,
  "lambdas/core/models/model-tiers.json",
).roles;

/** The deployment's two models (construct props, env HEAVY_MODEL_ID / FAST_MODEL_ID) and its thinking settings. */
export interface ModelTiers {
  readonly heavyModelId: string;
  readonly fastModelId: string;
  /** `models.thinking` of the configuration (env MODEL_THINKING); roles left out keep their default. */
  readonly thinking?: ThinkingSettings;
}

/**
 * The model for `role`: the GoalSpec's per-role override, then its `default`, then the deployment's
 * model for the role's tier. Overrides are checked against the allow-list when the goal is taken in
 * (`assertModelsAllowed`); IAM refuses any other model anyway.
 */
export function modelIdFor(spec: Pick<GoalSpec, "models">, role: ModelRole, tiers: ModelTiers): string {
  const override = spec.models?.[role] ?? spec.models?.default;
  if (override !== undefined) return override;
  return ROLE_TIERS[role] === "heavy" ? tiers.heavyModelId : tiers.fastModelId;
}
