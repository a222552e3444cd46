import {
  type ModelQuota,
  type ModelQuotas,
  quotaOf,
  reservedTokens,
  settledTokens,
} from "../../../lambdas/core/models/capacity/model-quota";
import type { TokenUsage } from "../../../lambdas/core/ports/model-client";
import type { JsonObject } from "../shared/cloud-assembly-model";
import { AwsApiError } from "../shared/errors";
import { isJsonObject } from "../shared/json";

/** What Bedrock answers past a quota (HTTP 429, `x-amzn-errortype: ThrottlingException`). */
export const THROTTLING_MESSAGE = "Too many requests, please wait before trying again.";

/**
 * The quotas the local endpoint enforces: per model, as the app was synthesized with them
 * (`models.quotas`), unless one quota is given for every model (`--model-quota`: the account's own,
 * which may be lower than what the app was told).
 */
export interface LocalModelQuotas {
  readonly everyModel?: ModelQuota;
  readonly byModel?: ModelQuotas;
}

/** A refill-as-you-go bucket of one resource (requests or quota tokens). */
class Bucket {
  private level: number;
  private at: number;

  constructor(
    private readonly capacity: number,
    private readonly perMs: number,
    nowMs: number,
  ) {
    this.level = capacity;
    this.at = nowMs;
  }

  /** Whether `amount` fits (one larger than the whole bucket fits a full one). */
  fits(amount: number, nowMs: number): boolean {
    this.refill(nowMs);
    return this.level >= Math.min(amount, this.capacity);
  }

  /** Takes `amount`; a negative amount gives back. The level may go below zero (a debt). */
  take(amount: number, nowMs: number): void {
    this.refill(nowMs);
    this.level = Math.min(this.capacity, this.level - amount);
  }

  private refill(nowMs: number): void {
    this.level = Math.min(this.capacity, this.level + Math.max(0, nowMs - this.at) * this.perMs);
    this.at = nowMs;
  }
}

/** A model's two buckets: requests, and quota tokens. */
interface ModelBuckets {
  readonly requests: Bucket;
  readonly tokens: Bucket;
  readonly quota: ModelQuota;
}

/** An admitted call's reservation, settled when its answer is known. */
export interface QuotaReservation {
  readonly modelId: string;
  readonly tokens: number;
}

/**
 * The local Bedrock endpoint's quotas, enforced as Bedrock counts them (Bedrock user guide, "Quotas"
 * and "How tokens are counted"): per model, requests and tokens per minute, refilled continuously,
 * at most `burstSeconds` of the minute's quota at once. A request is admitted when there is room
 * for one more request and for its reservation (its input plus `maxTokens`); its tokens are settled
 * to what it used when it is answered (input, cache writes, output times the burndown rate). Past
 * either, it is answered ThrottlingException, as Bedrock answers it. The capacity governor paces by
 * the same rule (lambdas/core/models/capacity/capacity-lanes.ts), so a quota both know throttles
 * nothing.
 */
export class ModelQuotaEnforcer {
  private readonly buckets = new Map<string, ModelBuckets>();
  private refused = 0;

  constructor(
    private readonly quotas: LocalModelQuotas,
    private readonly now: () => number = Date.now,
  ) {}

  /** How many requests were refused for a quota so far. */
  get throttled(): number {
    return this.refused;
  }

  /**
   * Admits a request of `reserved` quota tokens to `modelId`, or throws the ThrottlingException
   * Bedrock answers. A model without a quota is always admitted (undefined: nothing to settle).
   */
  admit(modelId: string, reserved: number): QuotaReservation | undefined {
    const buckets = this.bucketsOf(modelId);
    if (buckets === undefined) return undefined;
    const nowMs = this.now();
    if (!buckets.requests.fits(1, nowMs) || !buckets.tokens.fits(reserved, nowMs)) {
      this.refused += 1;
      throw new AwsApiError("ThrottlingException", THROTTLING_MESSAGE, 429);
    }
    buckets.requests.take(1, nowMs);
    buckets.tokens.take(reserved, nowMs);
    return { modelId, tokens: reserved };
  }

  /** Settles an admitted request to what it used (its unused reservation comes back). */
  settle(reservation: QuotaReservation | undefined, usage: TokenUsage): void {
    if (reservation === undefined) return;
    const buckets = this.bucketsOf(reservation.modelId);
    buckets?.tokens.take(settledTokens(reservation.modelId, usage) - reservation.tokens, this.now());
  }

  private bucketsOf(modelId: string): ModelBuckets | undefined {
    const quota = this.quotas.everyModel ?? quotaOf(this.quotas.byModel ?? {}, modelId);
    if (quota === undefined) return undefined;
    const known = this.buckets.get(modelId);
    if (known !== undefined && known.quota === quota) return known;
    const nowMs = this.now();
    const perSecond = (perMinute: number) => perMinute / 60;
    const buckets: ModelBuckets = {
      quota,
      requests: new Bucket(
        Math.max(1, perSecond(quota.requestsPerMinute) * quota.burstSeconds),
        perSecond(quota.requestsPerMinute) / 1000,
        nowMs,
      ),
      tokens: new Bucket(
        perSecond(quota.tokensPerMinute) * quota.burstSeconds,
        perSecond(quota.tokensPerMinute) / 1000,
        nowMs,
      ),
    };
    this.buckets.set(modelId, buckets);
    return buckets;
  }
}

/**
 * The tokens a Converse request reserves, estimated exactly as the capacity governor estimates the
 * request it sent: the same system, messages and tool specs (unwrapped from `toolConfig`, which
 * changes no byte of them), and `inferenceConfig.maxTokens`.
 */
export function reservedTokensOfConverse(request: JsonObject): number {
  const toolConfig = isJsonObject(request.toolConfig) ? request.toolConfig : {};
  const tools = Array.isArray(toolConfig.tools)
    ? toolConfig.tools.map((tool) => {
        const spec = isJsonObject(tool) && isJsonObject(tool.toolSpec) ? tool.toolSpec : {};
        const schema = isJsonObject(spec.inputSchema) ? spec.inputSchema.json : undefined;
        return { name: spec.name, description: spec.description, inputSchema: schema };
      })
    : [];
  const inference = isJsonObject(request.inferenceConfig) ? request.inferenceConfig : {};
  const maxTokens = typeof inference.maxTokens === "number" ? inference.maxTokens : undefined;
  return reservedTokens({
    system: request.system ?? [],
    messages: request.messages ?? [],
    tools,
    ...(maxTokens === undefined ? {} : { maxTokens }),
  });
}
