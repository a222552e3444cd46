import * as z from "../zod";

/**
 * A tenant id: a team, a customer, or an AWS account id when IAM callers fall back to their account.
 * It becomes part of DynamoDB keys (`TENANT#{tenantId}#GOALS`), so never a key separator (`#`), and
 * short enough that a hostile claim cannot make a key DynamoDB refuses.
 */
export const TENANT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export const TenantIdSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .string()
    .check(
      z.regex(
        TENANT_ID_PATTERN,
        "must be a tenant id: a letter or digit, then up to 63 letters, digits, _ or -",
      ),
    ),
);

/** The key of `tenants.limits` that holds every tenant's defaults; no tenant may be called this. */
export const DEFAULT_LIMITS_KEY = "default";

const wholeNumber = (max: number, unit: string) =>
  z
    .number({ error: `must be a whole number of ${unit} from 1 to ${max}` })
    .check(
      z.int({ error: `must be a whole number of ${unit} from 1 to ${max}` }),
      z.gte(1, { error: `must be a whole number of ${unit} from 1 to ${max}` }),
      z.lte(max, { error: `must be a whole number of ${unit} from 1 to ${max}` }),
    );

/**
 * What one tenant may use at once (DESIGN §6, "Limits per tenant"). A limit left out is not
 * enforced. Sub-goals belong to their parent's work: they count toward spend and capacity share,
 * never toward `concurrentGoals` or `startsPerMinute` (a parent waiting on a child that waits for
 * its parent's slot would never end).
 */
export const TenantLimitsSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .strictObject({
      concurrentGoals: z.optional(wholeNumber(10_000, "goals")).register(z.globalRegistry, {
        description:
          "Goals of the tenant started and not yet ended (paused ones count); more are accepted and wait their turn as waiting (waitingFor.kind capacity)",
      }),
      startsPerMinute: z.optional(wholeNumber(100_000, "goals per minute")).register(z.globalRegistry, {
        description:
          "Goals the tenant may post per minute (a whole minute's worth at once); more answer 429 with Retry-After",
      }),
      spendPerDayUsd: z
        .optional(
          z
            .number({ error: "must be a number of US dollars above 0, at most 10000000" })
            .check(
              z.positive({ error: "must be a number of US dollars above 0, at most 10000000" }),
              z.lte(10_000_000, { error: "must be a number of US dollars above 0, at most 10000000" }),
            ),
        )
        .register(z.globalRegistry, {
          description:
            "Model spend of the tenant's goals per UTC day (USD, counted from each call's usage as it is recorded); past it the tenant's goals pause before their next model call",
        }),
      modelShare: z
        .optional(
          z
            .number({ error: "must be a share above 0, at most 1" })
            .check(
              z.positive({ error: "must be a share above 0, at most 1" }),
              z.lte(1, { error: "must be a share above 0, at most 1" }),
            ),
        )
        .register(z.globalRegistry, {
          description:
            "The most of each model's quota (models.quotas) the tenant's calls may use at once, from 0 to 1; paced by a lane of the tenant's own before the model's",
        }),
    })
    .register(z.globalRegistry, { description: "A tenant's limits" }),
);
export type TenantLimits = z.output<typeof TenantLimitsSchema>;

/** The limits an operator may set (`POST /tenants/{id}/limits`): a number sets one, `null` lifts it. */
export const TenantLimitsPatchSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    concurrentGoals: z.optional(z.nullable(TenantLimitsSchema.shape.concurrentGoals.def.innerType)),
    startsPerMinute: z.optional(z.nullable(TenantLimitsSchema.shape.startsPerMinute.def.innerType)),
    spendPerDayUsd: z.optional(z.nullable(TenantLimitsSchema.shape.spendPerDayUsd.def.innerType)),
    modelShare: z.optional(z.nullable(TenantLimitsSchema.shape.modelShare.def.innerType)),
  }),
);
export type TenantLimitsPatch = z.output<typeof TenantLimitsPatchSchema>;

/** The limits an operator set, as the store keeps them: `null` is a limit lifted over the config's. */
export const TenantLimitsOverrideSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    concurrentGoals: z.optional(z.nullable(z.number().check(z.int(), z.gte(1)))),
    startsPerMinute: z.optional(z.nullable(z.number().check(z.int(), z.gte(1)))),
    spendPerDayUsd: z.optional(z.nullable(z.number().check(z.positive()))),
    modelShare: z.optional(z.nullable(z.number().check(z.positive(), z.lte(1)))),
  }),
);
export type TenantLimitsOverride = z.output<typeof TenantLimitsOverrideSchema>;

/** `tenants.limits`: `default` for every tenant, and a tenant's own entry over it. */
export const TenantLimitsTableSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.record(TenantIdSchema, TenantLimitsSchema).register(z.globalRegistry, {
    description: `Limits per tenant id; the '${DEFAULT_LIMITS_KEY}' entry applies to every tenant, a tenant's own entry over it`,
  }),
);
export type TenantLimitsTable = z.output<typeof TenantLimitsTableSchema>;

const LIMIT_NAMES = ["concurrentGoals", "startsPerMinute", "spendPerDayUsd", "modelShare"] as const;
export type TenantLimitName = (typeof LIMIT_NAMES)[number];

/**
 * The limits in effect for `tenantId`: the table's default, the tenant's own entry over it, and what
 * an operator set over both (`null` there lifts a limit). Own properties only: a tenant id such as
 * `constructor` reads nothing from a prototype.
 */
export function effectiveLimits(
  table: TenantLimitsTable,
  tenantId: string,
  override?: TenantLimitsOverride,
): TenantLimits {
  const base = Object.hasOwn(table, DEFAULT_LIMITS_KEY) ? table[DEFAULT_LIMITS_KEY] : undefined;
  const own = tenantId !== DEFAULT_LIMITS_KEY && Object.hasOwn(table, tenantId) ? table[tenantId] : undefined;
  const limits: { -readonly [name in TenantLimitName]?: number } = {};
  for (const name of LIMIT_NAMES) {
    const set = override?.[name];
    const value = set === null ? undefined : (set ?? own?.[name] ?? base?.[name]);
    if (value !== undefined) limits[name] = value;
  }
  return limits;
}

/** An override after `patch`: a number sets a limit, `null` lifts it, a field left out keeps what was set. */
export function patchOverride(
  current: TenantLimitsOverride | undefined,
  patch: TenantLimitsPatch,
): TenantLimitsOverride {
  const next: { -readonly [name in TenantLimitName]?: number | null } = {};
  for (const name of LIMIT_NAMES) {
    const value = Object.hasOwn(patch, name) ? patch[name] : current?.[name];
    if (value !== undefined) next[name] = value;
  }
  return next;
}
