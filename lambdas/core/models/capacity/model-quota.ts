import type { ModelRequest, TokenUsage } from "../../ports/model-client";
import * as z from "../../zod";

/**
 * One model's Bedrock quota as the deployment declares it (`models.quotas.<model>` in the config):
 * what the account may send that model per minute. The capacity governor spends it; the local
 * Bedrock endpoint enforces it as Bedrock would.
 */
export const ModelQuotaSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .strictObject({
      requestsPerMinute: z
        .number({ error: "must be a whole number of requests per minute from 1 to 1000000" })
        .check(
          z.int({ error: "must be a whole number of requests per minute from 1 to 1000000" }),
          z.gte(1, { error: "must be a whole number of requests per minute from 1 to 1000000" }),
          z.lte(1_000_000, { error: "must be a whole number of requests per minute from 1 to 1000000" }),
        )
        .register(z.globalRegistry, {
          description: "Requests per minute the account may send this model (Service Quotas)",
        }),
      tokensPerMinute: z
        .number({ error: "must be a whole number of tokens per minute from 1000 to 1000000000" })
        .check(
          z.int({ error: "must be a whole number of tokens per minute from 1000 to 1000000000" }),
          z.gte(1000, { error: "must be a whole number of tokens per minute from 1000 to 1000000000" }),
          z.lte(1_000_000_000, {
            error: "must be a whole number of tokens per minute from 1000 to 1000000000",
          }),
        )
        .register(z.globalRegistry, {
          description:
            "Tokens per minute the account may use of this model, counted as Bedrock counts them (input, and output at the model's burndown rate)",
        }),
      burstSeconds: z
        ._default(
          z
            .number({ error: "must be a whole number of seconds from 1 to 60" })
            .check(
              z.int({ error: "must be a whole number of seconds from 1 to 60" }),
              z.gte(1, { error: "must be a whole number of seconds from 1 to 60" }),
              z.lte(60, { error: "must be a whole number of seconds from 1 to 60" }),
            ),
          60,
        )
        .register(z.globalRegistry, {
          description:
            "How many seconds' worth of the quota may be used at once after a quiet spell; default 60 (a whole minute, as Bedrock counts). Lower it when Bedrock throttles bursts that stay under the per-minute quota",
        }),
    })
    .register(z.globalRegistry, { description: "A model's Bedrock quota" }),
);
export type ModelQuota = z.output<typeof ModelQuotaSchema>;
export type ModelQuotaInput = z.input<typeof ModelQuotaSchema>;

/**
 * Quotas by model id or inference profile id as goals name them (`global.anthropic.claude-sonnet-5-5`),
 * or a `prefix*` that covers several; the longest matching entry wins, as for prices.
 */
export const ModelQuotasSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .record(
      z
        .string()
        .check(
          z.minLength(1),
          z.maxLength(256),
          z.regex(
            /^[A-Za-z0-9.:_\-/]+\*?$/,
            "must be a model id, an inference profile id, or a prefix ending in *",
          ),
        ),
      ModelQuotaSchema,
    )
    .register(z.globalRegistry, {
      description: "Bedrock quotas per model: the capacity governor paces every goal's calls within them",
    }),
);
export type ModelQuotas = z.output<typeof ModelQuotasSchema>;

/** Where the constructs put `models.quotas` (JSON) for every function that makes model calls. */
export const MODEL_QUOTAS_ENV = "MODEL_QUOTAS";

/** The quota that applies to `modelId`: its own entry, else the longest `prefix*` entry it starts with. */
export function quotaOf(quotas: ModelQuotas, modelId: string): ModelQuota | undefined {
  const exact = Object.hasOwn(quotas, modelId) ? quotas[modelId] : undefined;
  if (exact !== undefined) return exact;
  const prefix = Object.keys(quotas)
    .filter((key) => key.endsWith("*") && modelId.startsWith(key.slice(0, -1)))
    .sort((a, b) => b.length - a.length)[0];
  return prefix === undefined ? undefined : quotas[prefix];
}

/**
 * How many quota tokens one output token burns: 5 for Claude 4 and later (Bedrock user guide, "How
 * tokens are counted in Amazon Bedrock"), 1 for others. The local endpoint's scripted models behave
 * like Claude Sonnet 5.5, so they burn 5 too.
 */
export function outputBurndown(modelId: string): number {
  if (/^(scripted|local):/.test(modelId)) return 5;
  return /anthropic\.claude-(opus|sonnet|haiku)-[4-9]/.test(modelId) ? 5 : 1;
}

/** What a request is assumed able to generate when it sets no `maxTokens` (every step sets one). */
const UNBOUNDED_OUTPUT_TOKENS = 8192;

/**
 * The tokens Bedrock reserves against the quota when a request starts: its input (estimated here
 * as one token per 3 UTF-8 bytes, which errs high for prose and JSON) plus `maxTokens`. Cache reads
 * count in the reservation and are released at settlement.
 */
export function reservedTokens(
  request: Pick<ModelRequest, "maxTokens"> & {
    readonly system: unknown;
    readonly messages: unknown;
    readonly tools?: unknown;
  },
): number {
  const promptBytes = Buffer.byteLength(
    JSON.stringify([request.system, request.messages, request.tools ?? []]),
  );
  return Math.ceil(promptBytes / 3) + (request.maxTokens ?? UNBOUNDED_OUTPUT_TOKENS);
}

/**
 * What a finished call really used of the quota: input, cache writes, and output at the model's
 * burndown rate (cache reads are released). The reservation is settled to this.
 */
export function settledTokens(modelId: string, usage: TokenUsage): number {
  return usage.inputTokens + usage.cacheWriteTokens + usage.outputTokens * outputBurndown(modelId);
}
