import { createHash } from "node:crypto";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import { tokenCounter } from "../lambdas/core/models/context/tokenizer";
import type { ModelCallRecord } from "../lib/local/bedrock/bedrock-endpoint";

/** The bench measures with the full cl100k_base table (the Lambdas estimate with its first merges). */
const countFull = tokenCounter(cl100k);

type Json = unknown;
type Block = Record<string, Json>;
interface ConverseBody {
  system?: Block[];
  messages?: { role: string; content: Block[] }[];
  toolConfig?: { tools?: Block[] };
}

const isCachePoint = (block: Block) => "cachePoint" in block;

/**
 * Tokens of one Converse content block as the model reads it (JSON for tool input and output). A
 * reasoning block counts its text as the tokenizer does, plus a token per four characters of its
 * signature (redacted bytes likewise): opaque bytes that carry the full thinking back to the model.
 */
export function blockTokens(block: Block): number {
  if (typeof block.text === "string") return countFull(block.text);
  const toolUse = block.toolUse as { name?: string; input?: Json } | undefined;
  if (toolUse) return countFull(`${toolUse.name} ${JSON.stringify(toolUse.input)}`);
  const toolResult = block.toolResult as { content?: Block[] } | undefined;
  if (toolResult) {
    const text = (toolResult.content ?? [])
      .map((item) => (typeof item.text === "string" ? item.text : JSON.stringify(item.json)))
      .join("\n");
    return countFull(text);
  }
  const reasoning = block.reasoningContent as
    | { reasoningText?: { text?: string; signature?: string }; redactedContent?: string }
    | undefined;
  if (reasoning?.reasoningText) {
    const { text = "", signature = "" } = reasoning.reasoningText;
    return countFull(text) + Math.ceil(signature.length / 4);
  }
  if (typeof reasoning?.redactedContent === "string") return Math.ceil(reasoning.redactedContent.length / 4);
  return 0;
}

/** The thinking of an answer, in tokens as the local endpoint bills it (its text, four characters a token). */
export function thinkingTokensOf(record: ModelCallRecord): number {
  const message = (record.response?.output as { message?: { content?: Block[] } } | undefined)?.message;
  return (message?.content ?? []).reduce((sum, block) => {
    const text = (block.reasoningContent as { reasoningText?: { text?: string } } | undefined)?.reasoningText
      ?.text;
    return sum + (typeof text === "string" ? Math.ceil(text.length / 4) : 0);
  }, 0);
}

/** How a prompt cache on `modelId` would bill the request: what it reads, writes and takes fresh. */
export interface CacheUse {
  /** Tokens served from the cache: the longest prefix up to a cache point an earlier call wrote. */
  readonly read: number;
  /** Tokens written to the cache: from the read prefix to the last cache point not cached yet. */
  readonly written: number;
  /** Whether the prompt up to its last cache point is below the model's minimum: nothing cached. */
  readonly belowMinimum: boolean;
  /** Cache points whose prefix is below the model's minimum (the service ignores them). */
  readonly pointsBelowMinimum: number;
  readonly points: number;
}

export interface MeasuredCall {
  readonly role: string;
  readonly call: number;
  /** Input tokens: tools, system and messages, reasoning blocks sent back included. */
  readonly tokens: number;
  /** Tokens before the first message: tools and system, the stable prefix. */
  readonly prefixTokens: number;
  /** Tokens a prompt cache serves (`cache.read`): the cacheable prefix this call reuses. */
  readonly reusedTokens: number;
  readonly cache: CacheUse;
  /** Whether tools and system are byte-identical to the previous request of the role. */
  readonly samePrefix: boolean;
  /** Output tokens of the answer that were thinking (the endpoint's count). */
  readonly thinkingTokens: number;
  /** Output tokens of the answer, thinking included, as the endpoint reported them. */
  readonly outputTokens: number;
  readonly messages: { role: string; content: Block[] }[];
  /** The answer's blocks (its turn, reasoning first). */
  readonly answer: Block[];
  readonly body: ConverseBody;
}

/** A Bedrock-like prompt cache: prefixes (content up to a cache point, cache points left out) by hash. */
class PromptCache {
  private readonly entries = new Set<string>();

  /**
   * Bills one request: reads the longest prefix an earlier request wrote, writes every prefix ending
   * at one of its cache points that is not cached yet and holds at least `minTokens`. TTLs are not
   * modelled: the bench's calls come seconds apart.
   */
  use(body: ConverseBody, minTokens: number): CacheUse {
    const blocks: { block: Block; tokens: number }[] = [];
    const tools = (body.toolConfig?.tools ?? []).filter((tool) => !isCachePoint(tool));
    const points: { key: string; tokens: number }[] = [];
    const hash = createHash("sha256");
    let tokens = 0;
    const mark = () => points.push({ key: hash.copy().digest("base64url"), tokens });
    const add = (block: Block, count: number) => {
      hash.update(JSON.stringify(block));
      blocks.push({ block, tokens: count });
      tokens += count;
    };
    if (tools.length > 0) add({ tools }, countFull(JSON.stringify(tools)));
    for (const block of body.toolConfig?.tools ?? []) if (isCachePoint(block)) mark();
    for (const block of body.system ?? []) isCachePoint(block) ? mark() : add(block, blockTokens(block));
    for (const message of body.messages ?? []) {
      hash.update(`|${message.role}|`);
      for (const block of message.content) isCachePoint(block) ? mark() : add(block, blockTokens(block));
    }
    const eligible = points.filter((point) => point.tokens >= minTokens);
    const read = Math.max(0, ...eligible.filter((p) => this.entries.has(p.key)).map((p) => p.tokens));
    const writes = eligible.filter((point) => !this.entries.has(point.key) && point.tokens > read);
    for (const point of writes) this.entries.add(point.key);
    const written = Math.max(0, ...writes.map((point) => point.tokens)) - (writes.length > 0 ? read : 0);
    return {
      read,
      written: Math.max(0, written),
      belowMinimum: points.length > 0 && eligible.length === 0,
      pointsBelowMinimum: points.length - eligible.length,
      points: points.length,
    };
  }
}

/**
 * Measures every request: total input tokens (reasoning sent back included), the stable prefix,
 * and what a prompt cache would serve and write at the request's own cache points, with the
 * minimum cacheable prefix of the model each role runs on by default (`minTokensOf`). Requests are
 * taken per role in call order.
 */
export function measureCalls(
  records: readonly ModelCallRecord[],
  minTokensOf: (role: string) => number,
): MeasuredCall[] {
  const byRole = new Map<string, ModelCallRecord[]>();
  for (const record of records) {
    if (record.error !== undefined) continue;
    byRole.set(record.role, [...(byRole.get(record.role) ?? []), record]);
  }
  const measured: MeasuredCall[] = [];
  const cache = new PromptCache();
  for (const [role, calls] of byRole) {
    calls.sort((a, b) => a.call - b.call);
    let previous: ConverseBody | undefined;
    for (const record of calls) {
      const body = record.request as ConverseBody;
      const stable = (of: ConverseBody) =>
        JSON.stringify([
          of.toolConfig?.tools ?? [],
          (of.system ?? []).filter((block) => !isCachePoint(block)),
        ]);
      const tools = (body.toolConfig?.tools ?? []).filter((tool) => !isCachePoint(tool));
      const prefixTokens =
        (body.system ?? []).reduce((sum, block) => sum + blockTokens(block), 0) +
        (tools.length ? countFull(JSON.stringify(tools)) : 0);
      const messages = body.messages ?? [];
      const messageTokens = messages.reduce(
        (sum, message) => sum + message.content.reduce((inner, block) => inner + blockTokens(block), 0),
        0,
      );
      const use = cache.use(body, minTokensOf(role));
      const answer =
        (record.response?.output as { message?: { content?: Block[] } } | undefined)?.message?.content ?? [];
      measured.push({
        role,
        call: record.call,
        tokens: prefixTokens + messageTokens,
        prefixTokens,
        reusedTokens: use.read,
        cache: use,
        samePrefix: previous !== undefined && stable(previous) === stable(body),
        thinkingTokens: thinkingTokensOf(record),
        outputTokens: Number(
          (record.response?.usage as { outputTokens?: number } | undefined)?.outputTokens ?? 0,
        ),
        messages,
        answer,
        body,
      });
      previous = body;
    }
  }
  return measured;
}

/**
 * What the naive full-scratchpad prompt would send for each reason call: the same prefix and state,
 * with every step so far verbatim, thinking included: step n is the turn the model answered call n
 * with, reasoning blocks first (as a loop that sends its whole transcript back sends them), and the
 * tool results the next request carried for it.
 */
export function naiveTokens(reasonCalls: readonly MeasuredCall[]): number[] {
  let steps = 0;
  return reasonCalls.map((call, index) => {
    const messages = call.messages;
    const last = messages.at(-1)?.content ?? [];
    const stateTokens = last
      .filter((block) => typeof block.text === "string")
      .reduce((s, b) => s + blockTokens(b), 0);
    if (index > 0) {
      const turn = reasonCalls[index - 1]?.answer ?? [];
      const results = last.filter((block) => "toolResult" in block);
      steps += [...turn, ...results].reduce((sum, block) => sum + blockTokens(block), 0);
    }
    return call.prefixTokens + steps + stateTokens;
  });
}
