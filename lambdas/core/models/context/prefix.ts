import type { ModelRequest } from "../../ports/model-client";
import { type ContextSettings, DEFAULT_CONTEXT_SETTINGS, supportsPromptCache } from "./context-settings";

/** The Bedrock block that ends a cacheable prefix. */
export const CACHE_POINT = { cachePoint: { type: "default" } } as const;

/**
 * The stable prefix of a prompt: the role's instructions, the goal block when there is one, then a
 * cache point when `modelId` caches (never for fixture or local models). No token counting here, so
 * a Lambda that only lays out a prompt does not bundle the tokenizer.
 */
export function stablePrefix(
  modelId: string,
  instructions: string,
  goalBlock: string | undefined,
  settings: Pick<ContextSettings, "cacheModels"> = DEFAULT_CONTEXT_SETTINGS,
): ModelRequest["system"] {
  return [
    { text: instructions },
    ...(goalBlock === undefined ? [] : [{ text: goalBlock }]),
    ...(supportsPromptCache(modelId, settings) ? [CACHE_POINT] : []),
  ];
}
