import { GoalLoopsError } from "../goal/errors";
import * as z from "../zod";
import { DEFAULT_LIMITS_KEY, TenantIdSchema, TenantLimitsTableSchema } from "./tenant-limits";

/**
 * `tenants` of the configuration, as every function that serves a tenant reads it (TENANTS, JSON):
 * who an IAM caller's tenant is, which tenants exist, who may change a tenant's limits, and the
 * limits themselves. A JWT caller's tenant comes from its token (api.auth.jwt.tenantClaim).
 */

/** An IAM principal ARN, or a pattern of them with `*` (any run of characters) and `?` (one). */
export const PrincipalPatternSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .string()
    .check(
      z.maxLength(2048),
      z.regex(
        /^arn:[a-z*-]+:(iam|sts)::(\d{12}|\*):[A-Za-z0-9+=,.@_/*?-]+$/,
        "must be an IAM or STS principal ARN, or a pattern of them with * and ?, such as arn:aws:iam::123456789012:role/team-a-*",
      ),
    ),
);

export const IamTenantMappingSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .strictObject({
      principal: PrincipalPatternSchema.clone().register(z.globalRegistry, {
        description:
          "A role or user ARN pattern; a session of an assumed role matches its role's ARN (arn:aws:iam::<account>:role/<name>) as well as its own",
      }),
      tenant: TenantIdSchema.clone().register(z.globalRegistry, {
        description: "The tenant of the principals the pattern matches",
      }),
    })
    .register(z.globalRegistry, { description: "IAM principals whose tenant is not their account" }),
);

export const TenantsSettingsSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .strictObject({
      iam: z
        ._default(z.array(IamTenantMappingSchema).check(z.maxLength(200)), [])
        .register(z.globalRegistry, {
          description:
            "IAM principal patterns → tenant ids, the first match wins; default: none (every caller is its account's tenant)",
        }),
      accountFallback: z._default(z.boolean(), true).register(z.globalRegistry, {
        description:
          "Whether an IAM caller no pattern matches is its AWS account's tenant (true) or refused with 403 (false)",
      }),
      known: z.optional(z.array(TenantIdSchema).check(z.maxLength(1000))).register(z.globalRegistry, {
        description:
          "When set, the only tenants the API serves (besides those tenants.iam and tenants.limits name): any other caller is refused with 403; default: any tenant IAM or a valid token names",
      }),
      admins: z
        ._default(z.array(PrincipalPatternSchema).check(z.maxLength(50)), [])
        .register(z.globalRegistry, {
          description:
            "IAM principal patterns that may change any tenant's limits (POST /tenants/{id}/limits); default: none",
        }),
      limits: z._default(TenantLimitsTableSchema, {}),
    })
    .check(
      z.superRefine((settings, context) => {
        if (settings.known?.includes(DEFAULT_LIMITS_KEY)) {
          context.addIssue({
            code: "custom",
            path: ["known"],
            message: `'${DEFAULT_LIMITS_KEY}' is not a tenant id`,
          });
        }
        settings.iam.forEach((mapping, index) => {
          if (mapping.tenant === DEFAULT_LIMITS_KEY) {
            context.addIssue({
              code: "custom",
              path: ["iam", index, "tenant"],
              message: `'${DEFAULT_LIMITS_KEY}' names the default limits, not a tenant`,
            });
          }
        });
      }),
    )
    .register(z.globalRegistry, {
      description: "Tenants inside one deployment: who belongs to which, and what each may use",
    }),
);
export type TenantsSettings = z.output<typeof TenantsSettingsSchema>;
export type TenantsSettingsInput = z.input<typeof TenantsSettingsSchema>;

/** Where the constructs put `tenants` (JSON) for every function that serves tenants. */
export const TENANTS_ENV = "TENANTS";

/** Every setting's default: each IAM caller is its account's tenant, no limit. */
export const DEFAULT_TENANTS_SETTINGS: TenantsSettings = TenantsSettingsSchema.parse({});

/** How a caller reached the API: signed with IAM (SigV4), or with a bearer token of the configured issuer. */
export const CallerViaSchema = /* @__PURE__ */ z.lazySchema(() => z.enum(["iam", "jwt"]));
export type CallerVia = z.output<typeof CallerViaSchema>;

/** Who calls and for which tenant, however they signed in: what every route is scoped by. */
export interface CallerIdentity {
  readonly tenantId: string;
  /** For audit trails (revision log, decisions): the IAM principal's ARN, or `jwt:<sub>`. */
  readonly caller: string;
  readonly via: CallerVia;
}

/** The request's caller has no tenant this deployment serves: 403 in the API's error shape. */
export class UnknownTenantError extends GoalLoopsError {
  override readonly name = "UnknownTenant";
}

/** The caller may not do this (an operator's route): 403 in the API's error shape. */
export class NotAnAdminError extends GoalLoopsError {
  override readonly name = "Forbidden";
}

/** `*` any run of characters, `?` one, everything else literally (as IAM's ARN patterns read). */
function patternRegExp(pattern: string): RegExp {
  const body = [...pattern]
    .map((char) => (char === "*" ? ".*" : char === "?" ? "." : char.replace(/[.+^${}()|[\]\\/-]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`);
}

/** `arn:aws:sts::123:assumed-role/Name/session` → also `arn:aws:iam::123:role/Name` (the role's path is not in it). */
function principalArns(userArn: string): string[] {
  const assumed = /^arn:([a-z-]+):sts::(\d{12}):assumed-role\/([^/]+)\/[^/]+$/.exec(userArn);
  return assumed === null ? [userArn] : [userArn, `arn:${assumed[1]}:iam::${assumed[2]}:role/${assumed[3]}`];
}

/** Whether a principal ARN matches one of the patterns. */
export function principalMatches(patterns: readonly string[], userArn: string | undefined): boolean {
  if (userArn === undefined || userArn.length > 2048) return false;
  const arns = principalArns(userArn);
  return patterns.some((pattern) => {
    const regExp = patternRegExp(pattern);
    return arns.some((arn) => regExp.test(arn));
  });
}

/**
 * An IAM caller's tenant: the first `tenants.iam` pattern its ARN matches, else its account (when
 * `accountFallback`), else none. Whether the tenant is served is `isKnownTenant`'s question.
 */
export function iamTenant(
  settings: TenantsSettings,
  identity: { readonly userArn?: string | null; readonly accountId?: string | null },
): string | undefined {
  const userArn = identity.userArn ?? undefined;
  const mapped = settings.iam.find((mapping) => principalMatches([mapping.principal], userArn));
  if (mapped !== undefined) return mapped.tenant;
  const account = identity.accountId ?? undefined;
  return settings.accountFallback && account !== undefined && TenantIdSchema.safeParse(account).success
    ? account
    : undefined;
}

/** Whether the deployment serves `tenantId`: any valid id, unless `tenants.known` lists them. */
export function isKnownTenant(settings: TenantsSettings, tenantId: string): boolean {
  if (!TenantIdSchema.safeParse(tenantId).success || tenantId === DEFAULT_LIMITS_KEY) return false;
  if (settings.known === undefined) return true;
  return (
    settings.known.includes(tenantId) ||
    settings.iam.some((mapping) => mapping.tenant === tenantId) ||
    Object.hasOwn(settings.limits, tenantId)
  );
}

/** Whether an IAM caller may change tenants' limits (`tenants.admins`). */
export function isTenantAdmin(settings: TenantsSettings, caller: CallerIdentity): boolean {
  return caller.via === "iam" && principalMatches(settings.admins, caller.caller);
}
