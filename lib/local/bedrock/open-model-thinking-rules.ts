import type { JsonObject, JsonValue } from "../shared/cloud-assembly-model";
import { isJsonObject } from "../shared/json";

/**
 * What strict mode checks in a request for an `openai:` model. Open models sign nothing and take
 * no thinking back (the translation leaves reasoning out of what it sends), so the Claude rules of
 * signatures, prefix binding and the round trip do not apply. What still holds, because the loop
 * must keep it for every model: a reasoning block sits only in an assistant message, before its
 * text and tool calls; and a block goes back only to the model that made it, so a signed block
 * (a Claude or scripted model's) sent to an open model is refused, as the loop must never do.
 */
export function openModelReasoningProblem(request: JsonObject, modelId: string): string | undefined {
  const messages = Array.isArray(request.messages) ? request.messages : [];
  for (const [i, message] of messages.entries()) {
    const content: JsonValue[] =
      isJsonObject(message) && Array.isArray(message.content) ? message.content : [];
    for (const [j, block] of content.entries()) {
      if (!isJsonObject(block) || !isJsonObject(block.reasoningContent)) continue;
      const where = `messages.${i}.content.${j}`;
      if (!isJsonObject(message) || message.role !== "assistant") {
        return `${where}: reasoning blocks are only taken in assistant messages`;
      }
      const before = content.slice(0, j);
      if (!before.every((earlier) => isJsonObject(earlier) && isJsonObject(earlier.reasoningContent))) {
        return `${where}: a reasoning block comes first in its message, before text and tool calls`;
      }
      const reasoning = block.reasoningContent;
      const text = isJsonObject(reasoning.reasoningText) ? reasoning.reasoningText : undefined;
      const signed = "redactedContent" in reasoning || (text !== undefined && "signature" in text);
      if (signed) {
        return `${where}: a signed reasoning block was made by another model, which '${modelId}' cannot read (an open model signs nothing); send a model only its own blocks`;
      }
    }
  }
  return undefined;
}
