import type { ModelTurn, ToolUseBlock } from "../ports/model-client";

/** A turn's text blocks joined by `separator` (tool calls left out), as the model wrote them. */
export function turnText(turn: Pick<ModelTurn, "content">, separator = "\n"): string {
  return turn.content.flatMap((block) => ("text" in block ? [block.text] : [])).join(separator);
}

/** A turn's tool calls, in the model's order. */
export function toolUsesOf(turn: Pick<ModelTurn, "content">): ToolUseBlock[] {
  return turn.content.flatMap((block) => ("toolUse" in block ? [block.toolUse] : []));
}

/**
 * The JSON object in a text answer: from its first `{` to its last `}` (code fences and chatter
 * around it cut), or what kept it from being one.
 */
export function jsonObjectIn(text: string): { readonly value: unknown } | { readonly problem: string } {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) return { problem: "no JSON object in the answer" };
  try {
    return { value: JSON.parse(text.slice(start, end + 1)) };
  } catch (error) {
    if (error instanceof SyntaxError) return { problem: error.message };
    throw error;
  }
}

/**
 * What a turn answers for a role that asks for one `tool` call: the inputs of its calls to that
 * tool, then the JSON object in its text (a model may answer in text instead), in that order; the
 * caller takes the first its schema accepts.
 */
export function answersOf(turn: ModelTurn, tool: string): unknown[] {
  const calls = toolUsesOf(turn).filter((call) => call.name === tool);
  const inText = jsonObjectIn(turnText(turn));
  return [...calls.map((call) => call.input), ...("value" in inText ? [inText.value] : [])];
}
