import { canonicalJson, sha256Hex } from "../../goal/canonical-json";
import type { JsonValue } from "../../goal/goal-change";
import type {
  CacheTtl,
  ContentBlock,
  Message,
  ModelRequest,
  ToolSpec,
  TurnConversation,
} from "../../ports/model-client";
import type { StepRecord } from "../../ports/step-log";
import { type ContextSettings, DEFAULT_CONTEXT_SETTINGS, supportsPromptCache } from "./context-settings";
import { CACHE_POINT, stablePrefix } from "./prefix";
import { alternate, stepMessages, toolResultText } from "./step-history";
import { countTokens, type TokenCounter } from "./tokenizer";

/** What the steps before the window did, as the last `summarize` call wrote it. */
export interface CompactionSummary {
  /** The summary covers steps 1 to `throughStep`. */
  readonly throughStep: number;
  readonly text: string;
}

/** The loop's history as a prompt shows it: a summary of the old steps, then the recent ones verbatim. */
export interface ContextHistory {
  readonly compaction?: CompactionSummary;
  /** Steps after the compaction, oldest first. */
  readonly steps: readonly StepRecord[];
}

/** Everything one model call's prompt is made of, in the order it is sent. */
export interface ContextInput {
  readonly modelId: string;
  /** The role's instructions: the first block of the stable prefix. */
  readonly instructions: string;
  /**
   * The goal as `stableGoalBlock` renders it: the same bytes on every call of a revision. Absent
   * for a call made before the goal record exists (`select`): the instructions are the prefix.
   */
  readonly goalBlock?: string;
  /** The tools offered (sent as toolConfig, which Bedrock caches with the system prefix). */
  readonly tools?: readonly ToolSpec[];
  readonly history: ContextHistory;
  /** Where the goal stands now: the volatile last user message. */
  readonly state: string;
  readonly settings?: ContextSettings;
  readonly count?: TokenCounter;
  /**
   * How long the stable prefix stays cached: `1h` for a goal that waits on people longer than the
   * default 5 minutes, on the models that take it (else the default).
   */
  readonly cacheTtl?: CacheTtl;
}

export interface PackedContext {
  readonly system: ModelRequest["system"];
  readonly messages: Message[];
  /**
   * The conversation this prompt continues, and the message it ends with: checkpointed with the
   * call's turn, so the next prompt shows that turn, verbatim, after the same message.
   */
  readonly conversation: TurnConversation;
  /** Estimated tokens of the stable prefix (tools and system) and of the whole prompt. */
  readonly prefixTokens: number;
  readonly totalTokens: number;
}

/**
 * The history's first user message: the compaction summary, and a line saying which steps follow.
 * Without a summary, a history whose first step shows the message its turn answered needs none:
 * the prompt starts as that step's own call did, so the history only grows at its end.
 */
function openingText(history: ContextHistory): string | undefined {
  const { compaction, steps } = history;
  const first = steps[0];
  // No step count that changes each call: the opening is part of the history's cacheable prefix.
  const stepsLine =
    first === undefined
      ? undefined
      : first.step === 1
        ? "The steps so far follow, oldest first."
        : `The steps from step ${first.step} on follow, oldest first.`;
  if (!compaction) return first?.conversation === undefined ? stepsLine : undefined;
  return [
    `Summary of steps 1 to ${compaction.throughStep} (older steps, compacted; their records are not in this prompt):`,
    compaction.text.trim() || "(empty summary)",
    ...(stepsLine === undefined ? [] : ["", stepsLine]),
  ].join("\n");
}

/**
 * Names a conversation by everything a reasoning block is bound to besides the messages: the model,
 * the system prompt, the tools and the history's opening. A revision (goal block, tools), a
 * compaction (opening) or another model gives another key, and the older turns lose their reasoning.
 */
function conversationKey(
  modelId: string,
  system: ModelRequest["system"],
  tools: readonly ToolSpec[] | undefined,
  opening: string | undefined,
): string {
  const head = {
    modelId,
    system: system.flatMap((block) => ("text" in block ? [block.text] : [])),
    tools: (tools ?? []) as unknown as JsonValue,
    opening: opening ?? null,
  };
  return sha256Hex(canonicalJson(head));
}

/**
 * The history's cache points (the stable prefix has its own): one after the stable part of the
 * history, the previous call's whole prompt, which this one repeats byte for byte while the
 * conversation goes on (its newest step shows the message its turn answered): that call wrote it to
 * the cache, this one reads it. One at the end, which this call writes for the next one to read.
 * Three in all with the prefix's, within Bedrock's four. A history whose newest step is not of this
 * conversation (a compaction, a revision) gets only the end one: nothing before it was cached.
 */
function withHistoryCachePoints(
  messages: readonly Message[],
  newest: StepRecord | undefined,
  key: string,
): Message[] {
  const marked = [...messages];
  const mark = (index: number) => {
    const message = marked[index];
    if (message) marked[index] = { ...message, content: [...message.content, CACHE_POINT] };
  };
  // The newest turn is the last assistant message; the user message before it ends with the
  // prompt that turn answered, the end of the previous call's request.
  const newestTurn = marked.map((message) => message.role).lastIndexOf("assistant");
  if (newest?.conversation?.key === key && newestTurn > 0) mark(newestTurn - 1);
  mark(marked.length - 1);
  return marked;
}

/** Tokens of the text a block puts in front of the model (JSON for tool input and output). */
function blockTokens(block: ContentBlock, count: TokenCounter): number {
  if ("text" in block) return count(block.text);
  if ("toolUse" in block) return count(`${block.toolUse.name} ${JSON.stringify(block.toolUse.input)}`);
  if ("toolResult" in block) return count(toolResultText(block.toolResult));
  if ("reasoningContent" in block) return reasoningTokens(block.reasoningContent);
  return 0;
}

/**
 * A reasoning block sent back: its text, plus its signature or redacted bytes (opaque, about four
 * characters a token, not worth the tokenizer): the signature carries the full thinking.
 */
function reasoningTokens(
  reasoning: Extract<ContentBlock, { reasoningContent: unknown }>["reasoningContent"],
): number {
  if ("redactedContent" in reasoning) return Math.ceil(reasoning.redactedContent.length / 4);
  const { text, signature } = reasoning.reasoningText;
  return Math.ceil((text.length + (signature?.length ?? 0)) / 4);
}

/** Estimated tokens of a prompt's parts (Bedrock adds a few per message; estimates leave them out). */
export function promptTokens(
  parts: { system: ModelRequest["system"]; messages: readonly Message[]; tools?: readonly ToolSpec[] },
  count: TokenCounter = countTokens,
): { prefixTokens: number; totalTokens: number } {
  const prefixTokens =
    parts.system.reduce((sum, block) => sum + ("text" in block ? count(block.text) : 0), 0) +
    (parts.tools?.length ? count(JSON.stringify(parts.tools)) : 0);
  const messageTokens = parts.messages.reduce(
    (sum, message) => sum + message.content.reduce((inner, block) => inner + blockTokens(block, count), 0),
    0,
  );
  return { prefixTokens, totalTokens: prefixTokens + messageTokens };
}

/**
 * Packs one model call's prompt: the stable prefix (instructions and goal block in `system`, after
 * the tools), then the compaction summary and the recent steps, then the current state. For a model
 * that caches (`cacheModels`), a cache point ends the prefix, one ends the previous call's prompt
 * inside the history and one ends this prompt (`withHistoryCachePoints`): between two compactions
 * the prompt only grows at its end, so each call reads all of the previous one from the cache.
 * Tool results above `toolResultTokens` are replaced by a reference to their artifact.
 *
 * The steps of this prompt's conversation (same model, system prompt, tools and opening) show their
 * turns verbatim, reasoning blocks included, after the message each answered: the prompt is the
 * previous call's plus its turn and what followed, which is what a reasoning block's signature
 * checks. Steps of an earlier conversation show text and tool calls only.
 */
export function packContext(input: ContextInput): PackedContext {
  const settings = input.settings ?? DEFAULT_CONTEXT_SETTINGS;
  const count = input.count ?? countTokens;
  const caching = supportsPromptCache(input.modelId, settings);
  const system = stablePrefix(input.modelId, input.instructions, input.goalBlock, settings, input.cacheTtl);
  const opening = openingText(input.history);
  const key = conversationKey(input.modelId, system, input.tools, opening);
  const history: Message[] = [
    ...(opening === undefined ? [] : [{ role: "user" as const, content: [{ text: opening }] }]),
    ...stepMessages(input.history.steps, { maxTokens: settings.toolResultTokens, count }, key),
  ];
  const unmarked = alternate([...history, { role: "user", content: [{ text: input.state }] }]);
  const messages = caching ? withHistoryCachePoints(unmarked, input.history.steps.at(-1), key) : unmarked;
  const tools = input.tools;
  return {
    system,
    messages,
    conversation: { key, prompt: input.state },
    ...promptTokens({ system, messages, ...(tools ? { tools } : {}) }, count),
  };
}
