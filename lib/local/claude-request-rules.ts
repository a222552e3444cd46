import type { JsonObject } from "./cloud-assembly-model";
import { isJsonObject } from "./json";

/**
 * What the Claude 5.5 models (the deployed defaults) answer 400 to, so the local endpoint refuses
 * it as well: a request the fixtures accept would otherwise fail only once deployed. Undefined when
 * the Converse body has none of it.
 */
export function claudeRequestProblem(request: JsonObject): string | undefined {
  const toolChoice = isJsonObject(request.toolConfig) ? request.toolConfig.toolChoice : undefined;
  if (isJsonObject(toolChoice) && ("any" in toolChoice || "tool" in toolChoice)) {
    return "toolConfig.toolChoice forces a tool call (any/tool), which the Claude 5.5 models refuse; leave it to the model (auto)";
  }
  const inference = isJsonObject(request.inferenceConfig) ? request.inferenceConfig : {};
  const extra = isJsonObject(request.additionalModelRequestFields)
    ? request.additionalModelRequestFields
    : {};
  for (const [where, fields, names] of [
    ["inferenceConfig", inference, ["temperature", "topP"]],
    ["additionalModelRequestFields", extra, ["temperature", "top_p"]],
  ] as const) {
    const named = names.find((name) => name in fields);
    if (named !== undefined) return `${where}.${named} is set, which the Claude 5.5 models refuse`;
  }
  const messages = Array.isArray(request.messages) ? request.messages : [];
  const last = messages.at(-1);
  if (isJsonObject(last) && last.role === "assistant") {
    return "the last message is the assistant's (a prefill), which the Claude 5.5 models refuse; end with a user message";
  }
  return undefined;
}
