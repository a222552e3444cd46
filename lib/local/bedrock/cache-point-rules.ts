import { supportsHourCacheTtl } from "../../../lambdas/core/models/context/context-settings";
import { CACHE_TTLS } from "../../../lambdas/core/ports/model-client";
import type { JsonObject, JsonValue } from "../shared/cloud-assembly-model";
import { isJsonObject } from "../shared/json";

/**
 * The cache points Bedrock Converse refuses, so a request the local endpoint answers is one the
 * service takes too. Sources: the Bedrock API reference, CachePointBlock (`type` is `default`,
 * `ttl` is `5m` or `1h`); the Bedrock user guide, Prompt caching (at most 4 cache checkpoints per
 * request; the 1-hour TTL only on the models it lists; TTLs may not increase along tools, system,
 * messages, the order the prompt is read in). A prefix below the model's minimum is no error: it
 * is billed as plain input (not checked here, the bench reports it).
 */
export const MAX_CACHE_POINTS = 4;

/** Scripted models behave like Claude Sonnet 5.5 (docs/local-stack.md), the default heavy model. */
const SCRIPTED_AS = "global.anthropic.claude-sonnet-5-5";

/** A cache point's place in the request, as the service names it. */
interface PlacedCachePoint {
  readonly where: string;
  readonly cachePoint: JsonValue;
}

function cachePointsIn(blocks: JsonValue | undefined, where: string): PlacedCachePoint[] {
  if (!Array.isArray(blocks)) return [];
  return blocks.flatMap((block, index) =>
    isJsonObject(block) && "cachePoint" in block
      ? [{ where: `${where}.${index}.cachePoint`, cachePoint: block.cachePoint ?? null }]
      : [],
  );
}

/** Every cache point of a Converse body, in the order the prompt is read: tools, system, messages. */
function cachePointsOf(request: JsonObject): PlacedCachePoint[] {
  const tools = isJsonObject(request.toolConfig) ? request.toolConfig.tools : undefined;
  const messages = Array.isArray(request.messages) ? request.messages : [];
  return [
    ...cachePointsIn(tools, "toolConfig.tools"),
    ...cachePointsIn(request.system, "system"),
    ...messages.flatMap((message, index) =>
      isJsonObject(message) ? cachePointsIn(message.content, `messages.${index}.content`) : [],
    ),
  ];
}

const TTL_MINUTES: Readonly<Record<string, number>> = { "5m": 5, "1h": 60 };

/** What is wrong with the request's cache points for `modelId`, in words naming where; else undefined. */
export function cachePointProblem(request: JsonObject, modelId: string): string | undefined {
  const points = cachePointsOf(request);
  if (points.length > MAX_CACHE_POINTS) {
    return `A request takes at most ${MAX_CACHE_POINTS} cache points (cachePoint blocks in toolConfig.tools, system and messages); found ${points.length}`;
  }
  const rulesOf = modelId.startsWith("scripted:") ? SCRIPTED_AS : modelId;
  let longest: { minutes: number; where: string } | undefined;
  for (const { where, cachePoint } of points) {
    if (!isJsonObject(cachePoint) || cachePoint.type !== "default") {
      return `${where}.type: Member must satisfy enum value set: [default]`;
    }
    const ttl = cachePoint.ttl ?? "5m";
    if (typeof ttl !== "string" || !CACHE_TTLS.some((known) => known === ttl)) {
      return `${where}.ttl: Member must satisfy enum value set: [${CACHE_TTLS.join(", ")}]`;
    }
    if (ttl === "1h" && !supportsHourCacheTtl(rulesOf)) {
      return `${where}.ttl: the model ${modelId} does not support a 1h cache TTL; leave ttl out (5 minutes)`;
    }
    const minutes = TTL_MINUTES[ttl] ?? 5;
    if (longest !== undefined && minutes > longest.minutes) {
      return `${where}.ttl: a cache point's TTL may not be longer than one before it (tools, then system, then messages): ${ttl} follows ${longest.minutes === 60 ? "1h" : "5m"} at ${longest.where}`;
    }
    if (longest === undefined || minutes < longest.minutes) longest = { minutes, where };
  }
  return undefined;
}
