import * as z from "../../zod";
import contextFile from "./context-settings.json" with { type: "json" };

export const ContextSettingsSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    /** Estimated prompt tokens above which the oldest steps are summarized and dropped. */
    budgetTokens: z.number().check(z.int(), z.gte(256)),
    /** The latest steps always shown verbatim: compaction never summarizes them. */
    keepRecentSteps: z.number().check(z.int(), z.gte(1), z.lte(50)),
    /** The most steps shown verbatim; more forces a compaction whatever the budget says. */
    maxWindowSteps: z.number().check(z.int(), z.gte(1), z.lte(1000)),
    /** A tool result above this many tokens is replaced by a reference to its artifact. */
    toolResultTokens: z.number().check(z.int(), z.gte(64)),
    /** Output bound of one `summarize` call. */
    summaryMaxTokens: z.number().check(z.int(), z.gte(64), z.lte(8192)),
    /** Model id fragments (`anthropic.claude-`) of models that accept Bedrock `cachePoint` blocks. */
    cacheModels: z.array(z.string().check(z.minLength(1))),
    /** What each caching model takes: its minimum cacheable prefix, and whether `ttl: "1h"` is allowed. */
    promptCache: z.object({
      /** The first entry whose `models` fragment the model id contains gives its minimum. */
      minTokens: z
        .array(
          z.object({ models: z.string().check(z.minLength(1)), tokens: z.number().check(z.int(), z.gte(1)) }),
        )
        .check(z.minLength(1)),
      hourTtlModels: z.array(z.string().check(z.minLength(1))),
    }),
  }),
);
export type ContextSettings = z.infer<typeof ContextSettingsSchema>;

const { $comment: _comment, ...contextSettings } = contextFile;
/**
 * context-settings.json. ContextSettingsSchema checks it when the tests run
 * (test/unit/models/bundled-settings.test.ts), not at every cold start: the file is compiled into
 * the bundle and cannot change after the build (model-prices.ts says what the check cost).
 */
export const DEFAULT_CONTEXT_SETTINGS: ContextSettings = contextSettings;

/**
 * Steps per `summarize` call. A constant, not a setting: compaction k covers steps up to
 * (k + 1) × COMPACTION_STRIDE, which is how a later call finds what the stored summaries cover.
 */
export const COMPACTION_STRIDE = 8;

/**
 * The fewest tokens a cache point's prefix must hold for `modelId` to cache it (Bedrock caches
 * nothing below it, and says nothing). Undefined for a model that does not cache.
 */
export function minCacheableTokens(
  modelId: string,
  settings: Pick<ContextSettings, "cacheModels" | "promptCache"> = DEFAULT_CONTEXT_SETTINGS,
): number | undefined {
  if (!supportsPromptCache(modelId, settings)) return undefined;
  return settings.promptCache.minTokens.find((entry) => modelId.includes(entry.models))?.tokens;
}

/** Whether `modelId` takes `ttl: "1h"` on a cache point (Bedrock answers 400 to it elsewhere). */
export function supportsHourCacheTtl(
  modelId: string,
  settings: Pick<ContextSettings, "promptCache"> = DEFAULT_CONTEXT_SETTINGS,
): boolean {
  return settings.promptCache.hourTtlModels.some((fragment) => modelId.includes(fragment));
}

/** Whether `modelId` takes Bedrock `cachePoint` blocks (fixture and local models do not). */
export function supportsPromptCache(
  modelId: string,
  settings: Pick<ContextSettings, "cacheModels">,
): boolean {
  return settings.cacheModels.some((fragment) => modelId.includes(fragment));
}
