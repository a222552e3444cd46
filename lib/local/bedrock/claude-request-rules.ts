import { THINKING_EFFORTS } from "../../../lambdas/core/goal/thinking-settings";
import type { JsonObject } from "../shared/cloud-assembly-model";
import { isJsonObject } from "../shared/json";

/** How Bedrock words an error the model's own API raised. */
export const MODEL_ERRORS = "The model returned the following errors: ";

/** The thinking a request asks for (`additionalModelRequestFields`); Claude 5.5's defaults when silent. */
export interface RequestedThinking {
  /** `thinking.type`: `adaptive` when the request sets none (Claude 5.5 thinks by default). */
  readonly type: string;
  /** `output_config.effort`: `high` when the request sets none. */
  readonly effort: string;
}

function extraFields(request: JsonObject): JsonObject {
  return isJsonObject(request.additionalModelRequestFields) ? request.additionalModelRequestFields : {};
}

export function requestedThinking(request: JsonObject): RequestedThinking {
  const extra = extraFields(request);
  const thinking = isJsonObject(extra.thinking) ? extra.thinking : {};
  const output = isJsonObject(extra.output_config) ? extra.output_config : {};
  return {
    type: typeof thinking.type === "string" ? thinking.type : "adaptive",
    effort: typeof output.effort === "string" ? output.effort : "high",
  };
}

/**
 * What the Claude 5.5 models (the deployed defaults) answer 400 to in a request's settings, so the
 * local endpoint refuses it as well: a request the fixtures accept would otherwise fail only once
 * deployed. Undefined when the Converse body has none of it. Sources: Anthropic's "What's new in
 * Claude Sonnet 5.5" (forced tool use is an error; thinking types adaptive and between_tools only),
 * the Claude 5.5 migration guides (no sampling parameters, no assistant prefill) and the effort docs.
 */
export function claudeRequestProblem(request: JsonObject): string | undefined {
  const toolChoice = isJsonObject(request.toolConfig) ? request.toolConfig.toolChoice : undefined;
  if (isJsonObject(toolChoice) && ("any" in toolChoice || "tool" in toolChoice)) {
    return "toolConfig.toolChoice forces a tool call (any/tool), which the Claude 5.5 models refuse; leave it to the model (auto)";
  }
  const inference = isJsonObject(request.inferenceConfig) ? request.inferenceConfig : {};
  const extra = extraFields(request);
  for (const [where, fields, names] of [
    ["inferenceConfig", inference, ["temperature", "topP"]],
    ["additionalModelRequestFields", extra, ["temperature", "top_p", "top_k"]],
  ] as const) {
    const named = names.find((name) => name in fields);
    if (named !== undefined) return `${where}.${named} is set, which the Claude 5.5 models refuse`;
  }
  const thinking = thinkingProblem(extra);
  if (thinking !== undefined) return `${MODEL_ERRORS}${thinking}`;
  const messages = Array.isArray(request.messages) ? request.messages : [];
  const last = messages.at(-1);
  if (isJsonObject(last) && last.role === "assistant") {
    return "the last message is the assistant's (a prefill), which the Claude 5.5 models refuse; end with a user message";
  }
  return undefined;
}

/** The thinking settings Claude Sonnet 5.5 refuses: `disabled`, a manual budget, an unknown effort. */
function thinkingProblem(extra: JsonObject): string | undefined {
  const thinking = isJsonObject(extra.thinking) ? extra.thinking : undefined;
  if (thinking !== undefined) {
    if (thinking.type === "disabled") {
      return 'thinking.type: "disabled" is not supported for this model. Use "adaptive" with output_config.effort, or "between_tools" to turn off up-front thinking';
    }
    if (thinking.type === "enabled" || "budget_tokens" in thinking) {
      return '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior';
    }
    if (thinking.type !== "adaptive" && thinking.type !== "between_tools") {
      return `thinking.type: Input should be 'adaptive' or 'between_tools'`;
    }
  }
  const output = isJsonObject(extra.output_config) ? extra.output_config : undefined;
  const effort = output?.effort;
  if (effort !== undefined && !THINKING_EFFORTS.some((level) => level === effort)) {
    return `output_config.effort: Input should be ${THINKING_EFFORTS.map((level) => `'${level}'`).join(", ")}`;
  }
  return undefined;
}
