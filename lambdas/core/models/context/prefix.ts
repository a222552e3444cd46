import type { CachePoint, CacheTtl, ModelRequest } from "../../ports/model-client";
import {
  type ContextSettings,
  DEFAULT_CONTEXT_SETTINGS,
  supportsHourCacheTtl,
  supportsPromptCache,
} from "./context-settings";

/** The Bedrock block that ends a cacheable prefix (the default 5-minute TTL). */
export const CACHE_POINT = { cachePoint: { type: "default" } } as const;

/**
 * The cache point that ends the stable prefix: `ttl: "1h"` when asked for and `modelId` takes it
 * (a goal that waits on people keeps its prefix cached across the wait), else the default 5 minutes.
 */
export function prefixCachePoint(
  modelId: string,
  ttl: CacheTtl | undefined,
  settings: Partial<Pick<ContextSettings, "promptCache">> = DEFAULT_CONTEXT_SETTINGS,
): { cachePoint: CachePoint } {
  const promptCache = settings.promptCache ?? DEFAULT_CONTEXT_SETTINGS.promptCache;
  return ttl === "1h" && supportsHourCacheTtl(modelId, { promptCache })
    ? { cachePoint: { type: "default", ttl: "1h" } }
    : CACHE_POINT;
}

/**
 * The stable prefix of a prompt: the role's instructions, the goal block when there is one, then a
 * cache point when `modelId` caches (never for fixture or local models), an hour long when `ttl`
 * asks for it and the model takes it. No token counting here, so a Lambda that only lays out a
 * prompt does not bundle the tokenizer.
 */
export function stablePrefix(
  modelId: string,
  instructions: string,
  goalBlock: string | undefined,
  settings: Pick<ContextSettings, "cacheModels"> &
    Partial<Pick<ContextSettings, "promptCache">> = DEFAULT_CONTEXT_SETTINGS,
  ttl?: CacheTtl,
): ModelRequest["system"] {
  return [
    { text: instructions },
    ...(goalBlock === undefined ? [] : [{ text: goalBlock }]),
    ...(supportsPromptCache(modelId, settings) ? [prefixCachePoint(modelId, ttl, settings)] : []),
  ];
}
