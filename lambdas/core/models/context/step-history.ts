import type { ContentBlock, Message, ToolResultBlock, ToolUseBlock } from "../../ports/model-client";
import type { StepRecord } from "../../ports/step-log";
import type { TokenCounter } from "./tokenizer";

/** Characters of a too-large tool result the prompt still shows, so the model knows what it was. */
const OMITTED_HEAD_CHARS = 400;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The tool result as prompt text: what the bound is measured on. */
export function toolResultText(result: ToolResultBlock): string {
  return result.content.map((item) => ("text" in item ? item.text : JSON.stringify(item.json))).join("\n");
}

/**
 * Where the full output of a call can be read again: the artifact Act stored it in (its own
 * `outputTooLarge` reference, or an artifact of the step named after the call), else the workspace
 * file the call read or wrote.
 */
function artifactOf(step: StepRecord, call: ToolUseBlock | undefined, result: ToolResultBlock) {
  for (const item of result.content) {
    const tooLarge = "json" in item && isObject(item.json) ? item.json.outputTooLarge : undefined;
    if (isObject(tooLarge) && typeof tooLarge.path === "string") return tooLarge.path;
  }
  const stored = step.observations.artifacts.find((artifact) =>
    artifact.path.includes(`-${result.toolUseId}`),
  );
  if (stored) return stored.path;
  const input = call?.input;
  if (call?.name.startsWith("workspace_") && isObject(input) && typeof input.path === "string") {
    return input.path;
  }
  return undefined;
}

/**
 * A tool result within `maxTokens`: as recorded when it fits, else a short reference (size, the
 * artifact to read it from, its head). Act already moves outputs over its byte bound to artifacts;
 * this bound is the prompt's, in tokens, and also covers results logged before a smaller bound.
 */
export function boundToolResult(
  step: StepRecord,
  result: ToolResultBlock,
  maxTokens: number,
  count: TokenCounter,
): ToolResultBlock {
  const text = toolResultText(result);
  const tokens = count(text);
  if (tokens <= maxTokens) return result;
  const call = step.turn.content.find(
    (block): block is { toolUse: ToolUseBlock } =>
      "toolUse" in block && block.toolUse.toolUseId === result.toolUseId,
  )?.toolUse;
  const artifact = artifactOf(step, call, result);
  const where = artifact
    ? `The full output is the workspace file '${artifact}': read parts of it with workspace_read.`
    : "Repeat the call to see it again.";
  const reference = {
    omitted: { tokens, boundTokens: maxTokens, ...(artifact ? { artifact } : {}) },
    head: `${text.slice(0, OMITTED_HEAD_CHARS)}…`,
    hint: `Too large for the prompt. ${where}`,
  };
  return { toolUseId: result.toolUseId, status: result.status, content: [{ json: reference }] };
}

/**
 * A tool call's input within `maxTokens`: as made when it fits, else with every long string cut to
 * its head and told where the full text is (a 5 MB file the model wrote stays in the workspace, not
 * in every later prompt). The call's name and id are kept, so its result still pairs with it.
 */
export function boundToolInput(call: ToolUseBlock, maxTokens: number, count: TokenCounter): ToolUseBlock {
  if (count(JSON.stringify(call.input)) <= maxTokens) return call;
  const { input } = call;
  const path =
    call.name.startsWith("workspace_") && isObject(input) && typeof input.path === "string"
      ? input.path
      : undefined;
  const where = path ? `the full text is the workspace file '${path}'` : "repeat the call to see it again";
  const cut = (value: unknown): unknown => {
    if (typeof value === "string" && value.length > OMITTED_HEAD_CHARS) {
      return `${value.slice(0, OMITTED_HEAD_CHARS)}… (${value.length} characters omitted from the prompt; ${where})`;
    }
    if (Array.isArray(value)) return value.map(cut);
    if (isObject(value))
      return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, cut(entry)]));
    return value;
  };
  return { ...call, input: cut(input) as ToolUseBlock["input"] };
}

/**
 * The assistant turn as the model gave it, for a step of the conversation the prompt continues:
 * reasoning blocks first, text, tool calls with their full inputs, in the model's order. Nothing is
 * trimmed or rebuilt: the reasoning blocks are bound to the turn and to everything before it. Only
 * blank text blocks are left out (Converse refuses them), and an empty turn gets a placeholder.
 */
function verbatimAssistantMessage(step: StepRecord): Message {
  const content = step.turn.content.filter((block) => !("text" in block && block.text.trim() === ""));
  return { role: "assistant", content: content.length > 0 ? content : [{ text: "(no output)" }] };
}

/**
 * The assistant turn of a step from another conversation (a revision, a compaction or another model
 * changed what came before it): text and tool calls only, never empty. Its reasoning blocks are
 * dropped, as they would be invalid; tool inputs are bounded like tool results when `bound` is given.
 * Every tool call gets its result in the next user message, so the pairing stays valid.
 */
function strippedAssistantMessage(step: StepRecord, bound: ResultBound | undefined): Message {
  const content = step.turn.content
    .filter(
      (block): block is Extract<ContentBlock, { text: string } | { toolUse: unknown }> =>
        ("text" in block && block.text.trim() !== "") || "toolUse" in block,
    )
    .map((block) =>
      "toolUse" in block && bound
        ? { toolUse: boundToolInput(block.toolUse, bound.maxTokens, bound.count) }
        : block,
    );
  return { role: "assistant", content: content.length > 0 ? content : [{ text: "(no output)" }] };
}

function toolResultsMessage(step: StepRecord, bound: ResultBound | undefined): Message | undefined {
  const content: ContentBlock[] = step.turn.content.flatMap((block) => {
    if (!("toolUse" in block)) return [];
    const { toolUseId } = block.toolUse;
    const result = step.toolResults.find((candidate) => candidate.toolUseId === toolUseId) ?? {
      toolUseId,
      status: "error" as const,
      content: [{ text: "no result was recorded for this call" }],
    };
    return [{ toolResult: bound ? boundToolResult(step, result, bound.maxTokens, bound.count) : result }];
  });
  return content.length > 0 ? { role: "user", content } : undefined;
}

/** Converse wants user and assistant turns to alternate: neighbours of one role become one message. */
export function alternate(messages: readonly Message[]): Message[] {
  const merged: Message[] = [];
  for (const message of messages) {
    const last = merged.at(-1);
    if (last && last.role === message.role) {
      merged[merged.length - 1] = { role: last.role, content: [...last.content, ...message.content] };
    } else {
      merged.push(message);
    }
  }
  return merged;
}

export interface ResultBound {
  readonly maxTokens: number;
  readonly count: TokenCounter;
}

/**
 * Each step as the model saw it: the message its turn answered (when kept), its assistant turn,
 * then its tool results (bounded when `bound` is given). A step of the conversation `current` (the
 * key of the prompt being packed) shows its turn verbatim, reasoning included; any other step its
 * text and tool calls only.
 */
export function stepMessages(steps: readonly StepRecord[], bound?: ResultBound, current?: string): Message[] {
  return steps.flatMap((step) => {
    const { conversation } = step;
    const prompt: Message[] =
      conversation === undefined ? [] : [{ role: "user", content: [{ text: conversation.prompt }] }];
    const assistant =
      current !== undefined && conversation?.key === current
        ? verbatimAssistantMessage(step)
        : strippedAssistantMessage(step, bound);
    const results = toolResultsMessage(step, bound);
    return [...prompt, assistant, ...(results ? [results] : [])];
  });
}

/** Steps as plain text, for a `summarize` prompt (which offers no tools, so it cannot carry toolUse blocks). */
export function stepsAsText(steps: readonly StepRecord[], bound: ResultBound): string {
  return steps
    .map((step) => {
      const lines = [`Step ${step.step}:`];
      for (const block of step.turn.content) {
        if ("text" in block && block.text.trim() !== "") lines.push(`- said: ${block.text.trim()}`);
        if (!("toolUse" in block)) continue;
        const { toolUseId, name, input } = boundToolInput(block.toolUse, bound.maxTokens, bound.count);
        lines.push(`- called ${name} ${JSON.stringify(input)}`);
        const result = step.toolResults.find((candidate) => candidate.toolUseId === toolUseId);
        const bounded = result && boundToolResult(step, result, bound.maxTokens, bound.count);
        lines.push(
          bounded ? `  result (${bounded.status}): ${toolResultText(bounded)}` : "  result: none recorded",
        );
      }
      return lines.join("\n");
    })
    .join("\n\n");
}
