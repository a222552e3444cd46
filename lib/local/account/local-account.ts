import { readFileSync } from "node:fs";
import * as z from "zod";
import { KNOWN_MODELS, type KnownModel } from "../../config/bedrock-model-catalog";
import { ConfigError, parseSettings } from "../../config/parse-settings";
import { CURRENT_BOOTSTRAP_VERSION } from "../../preflight/bootstrap-check";

/**
 * The AWS account the local stack's account endpoint describes to `goal-loops preflight`: what
 * `cdk bootstrap` left, which models Bedrock offers and where each stands in its lifecycle, SES,
 * the secrets, API Gateway's account settings. By default a fresh account that has been bootstrapped:
 * every model of the catalog as the catalog says, SES in its sandbox with nothing verified, no
 * secret, no API Gateway CloudWatch role. `npm start -- --account <file>` describes another.
 */

const IsoDateSchema = z.iso.datetime({ offset: true, error: "must be an ISO 8601 date-time" });

export const LocalModelSchema = z.strictObject({
  name: z.string().min(1).optional().describe("The model's name; default: the catalog's"),
  status: z.enum(["ACTIVE", "LEGACY"]).describe("Bedrock's modelLifecycle.status"),
  legacyTime: IsoDateSchema.optional(),
  endOfLifeTime: IsoDateSchema.optional(),
  profiles: z
    .array(z.string().regex(/^[a-z-]+$/, "must be a profile geography such as global, us or eu"))
    .optional()
    .describe("The geographies it has inference profiles in; default: the catalog's"),
});

/** A region's Lambda concurrency before any increase (new accounts may start far lower). */
export const DEFAULT_LAMBDA_CONCURRENCY = 1000;
/**
 * The local account's per-minute Bedrock quotas of every active model, on demand and cross-region:
 * plausible numbers for a young account, not any account's real ones (`--account` sets others).
 */
export const DEFAULT_BEDROCK_QUOTAS = {
  onDemand: { requestsPerMinute: 50, tokensPerMinute: 200_000 },
  crossRegion: { requestsPerMinute: 100, tokensPerMinute: 400_000 },
} as const;

export const LocalAccountSchema = z.strictObject({
  accountId: z
    .string()
    .regex(/^\d{12}$/, "must be a 12-digit account id")
    .default("000000000000"),
  bootstrapVersion: z
    .number()
    .int()
    .nullable()
    .default(CURRENT_BOOTSTRAP_VERSION)
    .describe("The CDK bootstrap version (SSM /cdk-bootstrap/hnb659fds/version); null: not bootstrapped"),
  models: z
    .record(z.string().min(1), LocalModelSchema)
    .default({})
    .describe("Foundation models by id, over (or besides) the catalog's"),
  ses: z
    .strictObject({
      productionAccess: z.boolean().default(false),
      sendingEnabled: z.boolean().default(true),
      verifiedIdentities: z.array(z.string().min(1)).default([]),
    })
    .default({ productionAccess: false, sendingEnabled: true, verifiedIdentities: [] }),
  secrets: z
    .array(
      z.union([
        z.string().min(1),
        z.strictObject({
          name: z.string().min(1),
          deletedDate: IsoDateSchema.optional(),
          createdDate: IsoDateSchema.optional().describe("default 2026-01-01T00:00:00Z"),
          lastChangedDate: IsoDateSchema.optional(),
          lastRotatedDate: IsoDateSchema.optional(),
        }),
      ]),
    )
    .default([])
    .describe("Secrets Manager: each secret by name (or with its dates, as DescribeSecret answers them)"),
  apiGatewayCloudWatchRoleArn: z.string().min(1).nullable().default(null),
  lambda: z
    .strictObject({
      concurrentExecutions: z.number().int().min(0).default(DEFAULT_LAMBDA_CONCURRENCY),
      unreservedConcurrentExecutions: z.number().int().min(0).optional(),
    })
    .default({ concurrentExecutions: DEFAULT_LAMBDA_CONCURRENCY })
    .describe(
      "Lambda's account settings (GetAccountSettings); default 1,000 concurrent executions, none reserved",
    ),
  bedrockQuotas: z
    .array(
      z.strictObject({
        name: z
          .string()
          .min(1)
          .describe(
            "As Service Quotas names it, e.g. 'Cross-Region InvokeModel tokens per minute for Claude Sonnet 5.5'",
          ),
        value: z.number().min(0),
      }),
    )
    .optional()
    .describe("Bedrock's quotas (Service Quotas); default: DEFAULT_BEDROCK_QUOTAS for every active model"),
});

export type LocalAccountInput = z.input<typeof LocalAccountSchema>;
export type LocalAccount = z.output<typeof LocalAccountSchema>;

/** A model as the account endpoint serves it. */
export interface AccountModel {
  readonly foundationModelId: string;
  readonly name: string;
  readonly profiles: readonly string[];
  readonly status: "ACTIVE" | "LEGACY";
  readonly legacyTime?: string;
  readonly endOfLifeTime?: string;
}

export function localAccount(input: LocalAccountInput = {}): LocalAccount {
  return parseSettings(LocalAccountSchema, input, "local account");
}

/** Reads an account description file (`npm start -- --account <file>`). */
export function loadLocalAccountFile(file: string): LocalAccount {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ConfigError(`${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseSettings(LocalAccountSchema, value, file);
}

/** The catalog's models with the account's overrides, and the account's own models. */
export function accountModels(account: LocalAccount): ReadonlyMap<string, AccountModel> {
  const models = new Map<string, AccountModel>();
  for (const known of KNOWN_MODELS) models.set(known.foundationModelId, fromCatalog(known));
  for (const [id, model] of Object.entries(account.models)) {
    const base = models.get(id);
    models.set(id, {
      foundationModelId: id,
      name: model.name ?? base?.name ?? id,
      profiles: model.profiles ?? base?.profiles ?? [],
      status: model.status,
      ...(model.legacyTime === undefined ? {} : { legacyTime: model.legacyTime }),
      ...(model.endOfLifeTime === undefined ? {} : { endOfLifeTime: model.endOfLifeTime }),
    });
  }
  return models;
}

function fromCatalog(known: KnownModel): AccountModel {
  const { lifecycle } = known;
  return {
    foundationModelId: known.foundationModelId,
    name: known.name,
    profiles: known.profiles,
    ...(lifecycle.status === "legacy"
      ? {
          status: "LEGACY" as const,
          legacyTime: `${lifecycle.since}T00:00:00Z`,
          endOfLifeTime: `${lifecycle.endOfLife}T00:00:00Z`,
        }
      : { status: "ACTIVE" as const }),
  };
}

/** Bedrock's quotas as Service Quotas lists them: the account's own, else the defaults for its models. */
export function accountBedrockQuotas(account: LocalAccount): readonly { name: string; value: number }[] {
  if (account.bedrockQuotas !== undefined) return account.bedrockQuotas;
  return [...accountModels(account).values()]
    .filter((model) => model.status === "ACTIVE")
    .flatMap((model) =>
      (["onDemand", "crossRegion"] as const).flatMap((scope) => {
        const label = scope === "onDemand" ? "On-demand" : "Cross-Region";
        const quota = DEFAULT_BEDROCK_QUOTAS[scope];
        return [
          {
            name: `${label} InvokeModel requests per minute for ${model.name}`,
            value: quota.requestsPerMinute,
          },
          { name: `${label} InvokeModel tokens per minute for ${model.name}`, value: quota.tokensPerMinute },
        ];
      }),
    );
}
