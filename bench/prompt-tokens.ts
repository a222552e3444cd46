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
  toolConfig?: { tools?: Json[] };
}

/** Tokens of one Converse content block as the model reads it (JSON for tool input and output). */
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
  return 0;
}

export interface MeasuredCall {
  readonly role: string;
  readonly call: number;
  /** Input tokens: tools, system and messages. */
  readonly tokens: number;
  /** Tokens before the first message: tools and system, the stable prefix. */
  readonly prefixTokens: number;
  /** Tokens at the start of this request identical to the previous request of the role (a cache could serve them). */
  readonly reusedTokens: number;
  /** Whether tools and system are byte-identical to the previous request of the role. */
  readonly samePrefix: boolean;
  /** Output tokens of the answer, from the fixture turn (for the model cost). */
  readonly messages: { role: string; content: Block[] }[];
  readonly body: ConverseBody;
}

/**
 * Measures every request: total input tokens, the stable prefix, and the reusable prefix — the
 * tools, system and leading message blocks equal to the previous request's, not counting that
 * request's last message (its volatile state): what a prompt cache with a point after the history
 * would serve. Requests are taken per role in call order.
 */
export function measureCalls(records: readonly ModelCallRecord[]): MeasuredCall[] {
  const byRole = new Map<string, ModelCallRecord[]>();
  for (const record of records) {
    if (record.error !== undefined) continue;
    byRole.set(record.role, [...(byRole.get(record.role) ?? []), record]);
  }
  const measured: MeasuredCall[] = [];
  for (const [role, calls] of byRole) {
    calls.sort((a, b) => a.call - b.call);
    let previous: ConverseBody | undefined;
    for (const record of calls) {
      const body = record.request as ConverseBody;
      const prefixText = JSON.stringify([body.toolConfig?.tools ?? [], body.system ?? []]);
      const prefixTokens =
        (body.system ?? []).reduce((sum, block) => sum + blockTokens(block), 0) +
        (body.toolConfig?.tools?.length ? countFull(JSON.stringify(body.toolConfig.tools)) : 0);
      const messages = body.messages ?? [];
      const samePrefix =
        previous !== undefined &&
        JSON.stringify([previous.toolConfig?.tools ?? [], previous.system ?? []]) === prefixText;
      let reusedTokens = samePrefix ? prefixTokens : 0;
      if (samePrefix && previous) {
        const before = (previous.messages ?? []).slice(0, -1).flatMap((message) => message.content);
        const now = messages.flatMap((message) => message.content);
        for (let index = 0; index < before.length && index < now.length; index += 1) {
          const block = now[index] as Block;
          if (JSON.stringify(block) !== JSON.stringify(before[index])) break;
          reusedTokens += blockTokens(block);
        }
      }
      const messageTokens = messages.reduce(
        (sum, message) => sum + message.content.reduce((inner, block) => inner + blockTokens(block), 0),
        0,
      );
      measured.push({
        role,
        call: record.call,
        tokens: prefixTokens + messageTokens,
        prefixTokens,
        reusedTokens,
        samePrefix,
        messages,
        body,
      });
      previous = body;
    }
  }
  return measured;
}

/**
 * What the naive full-scratchpad prompt would send for each reason call: the same prefix and state,
 * with every step so far verbatim. Step n's messages are taken from the first request that shows
 * them verbatim (call n+1 always does: the packer keeps the latest steps).
 */
export function naiveTokens(reasonCalls: readonly MeasuredCall[]): number[] {
  const stepTokens: number[] = [];
  return reasonCalls.map((call, index) => {
    const messages = call.messages;
    const state = messages.at(-1)?.content.find((block) => typeof block.text === "string");
    const stateTokens = state ? blockTokens(state) : 0;
    // The newest step in this request: the last assistant message and the tool results after it.
    const lastAssistant = messages.map((message) => message.role).lastIndexOf("assistant");
    if (index > 0 && lastAssistant >= 0) {
      const assistant = messages[lastAssistant]?.content ?? [];
      const results = (messages[lastAssistant + 1]?.content ?? []).filter((block) => "toolResult" in block);
      stepTokens.push([...assistant, ...results].reduce((sum, block) => sum + blockTokens(block), 0));
    }
    return call.prefixTokens + stepTokens.reduce((sum, tokens) => sum + tokens, 0) + stateTokens;
  });
}
