import * as z from "zod";
import type { JsonObject, JsonValue } from "../shared/cloud-assembly-model";
import { AwsApiError } from "../shared/errors";
import { isJsonObject } from "../shared/json";

/**
 * Converse ⇄ OpenAI Chat Completions (the API Ollama, llama.cpp, vLLM and LM Studio serve at
 * `/v1/chat/completions`), for `openai:<model>` ids on the local Bedrock endpoint. Pure: no I/O here,
 * openai-chat-client.ts sends the request. Only what the loop sends is translated (text, tool specs,
 * tool calls and results, reasoning); a block Chat Completions cannot carry is a ValidationException
 * naming it, never dropped in silence.
 */

/** A Chat Completions message, as this translation sends it. */
export type ChatMessage =
  | { readonly role: "system" | "user"; readonly content: string }
  | {
      readonly role: "assistant";
      readonly content: string | null;
      readonly tool_calls?: readonly ChatToolCall[];
    }
  | { readonly role: "tool"; readonly tool_call_id: string; readonly content: string };

export interface ChatToolCall {
  readonly id: string;
  readonly type: "function";
  readonly function: { readonly name: string; readonly arguments: string };
}

export interface ChatCompletionRequest {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly tools?: readonly {
    readonly type: "function";
    readonly function: {
      readonly name: string;
      readonly description?: string;
      readonly parameters: JsonValue;
    };
  }[];
  readonly tool_choice?: "auto" | "required" | { type: "function"; function: { name: string } };
  readonly max_tokens?: number;
  readonly temperature?: number;
  readonly top_p?: number;
  readonly stop?: readonly string[];
  readonly stream: false;
}

const blocksOf = (value: JsonValue | undefined): JsonValue[] => (Array.isArray(value) ? value : []);

function invalid(where: string, message: string): AwsApiError {
  return new AwsApiError("ValidationException", `${where}: ${message}`);
}

/** The text of a list of Converse blocks that may only hold text (and cache points, which are not content). */
function textOf(blocks: JsonValue[], where: string): string {
  return blocks
    .flatMap((block, index) => {
      if (!isJsonObject(block) || "cachePoint" in block) return [];
      if (typeof block.text === "string") return [block.text];
      throw invalid(
        `${where}.${index}`,
        `only text can go to an openai: model, not ${Object.keys(block)[0]}`,
      );
    })
    .join("\n");
}

/** A tool result's content as the one string a `tool` message holds: texts, and JSON as JSON text. */
function toolResultText(result: JsonObject, where: string): string {
  const parts = blocksOf(result.content).map((block, index) => {
    if (isJsonObject(block) && typeof block.text === "string") return block.text;
    if (isJsonObject(block) && "json" in block) return JSON.stringify(block.json);
    throw invalid(
      `${where}.content.${index}`,
      "a tool result sent to an openai: model holds text or json only",
    );
  });
  const text = parts.join("\n");
  // Chat Completions has no error flag on a tool message: the model reads it from the text.
  return result.status === "error" ? `Error: ${text}` : text;
}

/** One Converse message as Chat Completions messages (a user turn of tool results becomes `tool` messages). */
function chatMessagesOf(message: JsonValue, index: number): ChatMessage[] {
  const where = `messages.${index}`;
  if (!isJsonObject(message)) throw invalid(where, "is not an object");
  const content = blocksOf(message.content);
  if (message.role === "assistant") {
    const texts: string[] = [];
    const toolCalls: ChatToolCall[] = [];
    content.forEach((block, j) => {
      if (!isJsonObject(block) || "cachePoint" in block) return;
      // Reasoning stays with the loop: OpenAI-compatible servers take no thinking back (some refuse it).
      if ("reasoningContent" in block) return;
      if (typeof block.text === "string") texts.push(block.text);
      else if (isJsonObject(block.toolUse)) {
        const { toolUseId, name, input } = block.toolUse;
        if (typeof toolUseId !== "string" || typeof name !== "string") {
          throw invalid(`${where}.content.${j}.toolUse`, "needs toolUseId and name");
        }
        toolCalls.push({
          id: toolUseId,
          type: "function",
          function: { name, arguments: JSON.stringify(input ?? {}) },
        });
      } else throw invalid(`${where}.content.${j}`, `${Object.keys(block)[0]} cannot go to an openai: model`);
    });
    return [
      {
        role: "assistant",
        // null goes with tool calls only: an assistant message of nothing is empty text.
        content: texts.length > 0 ? texts.join("\n") : toolCalls.length > 0 ? null : "",
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      },
    ];
  }
  if (message.role !== "user") throw invalid(`${where}.role`, "must be user or assistant");
  // Tool messages must follow the assistant's tool calls directly: results first, the rest after.
  const results: ChatMessage[] = [];
  const rest: JsonValue[] = [];
  content.forEach((block, j) => {
    if (isJsonObject(block) && isJsonObject(block.toolResult)) {
      const { toolUseId } = block.toolResult;
      if (typeof toolUseId !== "string") throw invalid(`${where}.content.${j}.toolResult`, "needs toolUseId");
      results.push({
        role: "tool",
        tool_call_id: toolUseId,
        content: toolResultText(block.toolResult, `${where}.content.${j}.toolResult`),
      });
    } else rest.push(block);
  });
  const text = textOf(rest, `${where}.content`);
  return text === "" && results.length > 0 ? results : [...results, { role: "user", content: text }];
}

/** Converse `toolConfig` as Chat Completions `tools` and `tool_choice`. */
function toolsOf(toolConfig: JsonValue | undefined): Pick<ChatCompletionRequest, "tools" | "tool_choice"> {
  if (!isJsonObject(toolConfig)) return {};
  const tools = blocksOf(toolConfig.tools).flatMap((tool, index) => {
    if (!isJsonObject(tool) || "cachePoint" in tool) return [];
    const spec = tool.toolSpec;
    const schema = isJsonObject(spec) && isJsonObject(spec.inputSchema) ? spec.inputSchema.json : undefined;
    if (!isJsonObject(spec) || typeof spec.name !== "string" || schema === undefined) {
      throw invalid(`toolConfig.tools.${index}`, "needs toolSpec {name, inputSchema: {json}}");
    }
    return [
      {
        type: "function" as const,
        function: {
          name: spec.name,
          ...(typeof spec.description === "string" ? { description: spec.description } : {}),
          parameters: schema,
        },
      },
    ];
  });
  const choice = toolConfig.toolChoice;
  const toolChoice: ChatCompletionRequest["tool_choice"] = !isJsonObject(choice)
    ? undefined
    : "any" in choice
      ? "required"
      : isJsonObject(choice.tool) && typeof choice.tool.name === "string"
        ? { type: "function", function: { name: choice.tool.name } }
        : "auto";
  return {
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice === undefined || tools.length === 0 ? {} : { tool_choice: toolChoice }),
  };
}

/**
 * A Converse request body (wire JSON) as a Chat Completions request for `model`. Bedrock-only
 * fields (`requestMetadata`, `additionalModelRequestFields` such as Claude's thinking settings,
 * `performanceConfig`) have no Chat Completions counterpart and are not sent.
 */
export function converseToChatCompletion(request: JsonObject, model: string): ChatCompletionRequest {
  const system = textOf(blocksOf(request.system), "system");
  const messages = blocksOf(request.messages).flatMap(chatMessagesOf);
  const inference = isJsonObject(request.inferenceConfig) ? request.inferenceConfig : {};
  const { maxTokens, temperature, topP, stopSequences } = inference;
  const stop = Array.isArray(stopSequences) ? stopSequences.filter((s) => typeof s === "string") : [];
  return {
    model,
    messages: system === "" ? messages : [{ role: "system", content: system }, ...messages],
    ...toolsOf(request.toolConfig),
    ...(typeof maxTokens === "number" ? { max_tokens: maxTokens } : {}),
    ...(typeof temperature === "number" ? { temperature } : {}),
    ...(typeof topP === "number" ? { top_p: topP } : {}),
    ...(stop.length > 0 ? { stop } : {}),
    stream: false,
  };
}

/** The part of a Chat Completions answer this translation reads (servers add fields of their own). */
export const ChatCompletionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          // vLLM and DeepSeek send `reasoning_content`; Ollama and newer vLLM send `reasoning`.
          reasoning_content: z.string().nullish(),
          reasoning: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({
                id: z.string().min(1).optional(),
                function: z.object({ name: z.string().min(1), arguments: z.string().nullish() }),
              }),
            )
            .nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: z
    .object({
      prompt_tokens: z.number().int().min(0),
      completion_tokens: z.number().int().min(0),
      prompt_tokens_details: z.object({ cached_tokens: z.number().int().min(0).nullish() }).nullish(),
    })
    .nullish(),
});
export type ChatCompletion = z.infer<typeof ChatCompletionSchema>;

/** Chat Completions `finish_reason` → Converse `stopReason`. */
function stopReasonOf(finishReason: string | null | undefined, hasToolCalls: boolean, malformed: boolean) {
  if (malformed) return "malformed_tool_use";
  if (finishReason === "length") return "max_tokens";
  if (finishReason === "content_filter") return "content_filtered";
  // Some servers answer tool calls with `stop`: the calls are what the loop acts on.
  if (finishReason === "tool_calls" || finishReason === "function_call" || hasToolCalls) return "tool_use";
  return "end_turn";
}

/** A tool call's `arguments` as Converse `input` (an object), or undefined when it is not a JSON object. */
function argumentsOf(text: string | null | undefined): JsonObject | undefined {
  if (text === undefined || text === null || text.trim() === "") return {};
  try {
    const parsed: JsonValue = JSON.parse(text);
    return isJsonObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A Chat Completions answer (already parsed JSON) as a Converse response. Reasoning the server
 * returns becomes a reasoning block with no signature (open models sign nothing). A tool call whose
 * `arguments` are not a JSON object keeps its name with an empty input and the turn stops with
 * `malformed_tool_use`, as Bedrock reports a model's broken tool call: the tool then answers a
 * validation error the model reads. `usage` maps `prompt_tokens` (less cached) to input,
 * `completion_tokens` (thinking included, as Bedrock counts it) to output.
 */
export function chatCompletionToConverse(
  answer: unknown,
  toolUseIdOf: (index: number) => string,
): JsonObject {
  const parsed = ChatCompletionSchema.safeParse(answer);
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    throw new AwsApiError(
      "ModelErrorException",
      `The OpenAI-compatible server's answer is not a chat completion: ${why}`,
      424,
    );
  }
  const [choice] = parsed.data.choices;
  const message = choice?.message ?? {};
  const reasoning = message.reasoning_content ?? message.reasoning ?? "";
  let malformed = false;
  const toolUses = (message.tool_calls ?? []).map((call, index) => {
    const input = argumentsOf(call.function.arguments);
    if (input === undefined) malformed = true;
    return {
      toolUse: { toolUseId: call.id ?? toolUseIdOf(index), name: call.function.name, input: input ?? {} },
    };
  });
  const content: JsonObject[] = [
    ...(reasoning === "" ? [] : [{ reasoningContent: { reasoningText: { text: reasoning } } }]),
    ...(message.content ? [{ text: message.content }] : []),
    ...toolUses,
  ];
  const usage = parsed.data.usage;
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  const inputTokens = Math.max(0, (usage?.prompt_tokens ?? 0) - cached);
  const outputTokens = usage?.completion_tokens ?? 0;
  return {
    output: { message: { role: "assistant", content } },
    stopReason: stopReasonOf(choice?.finish_reason, toolUses.length > 0, malformed),
    usage: {
      inputTokens,
      outputTokens,
      totalTokens: inputTokens + outputTokens + cached,
      ...(cached > 0 ? { cacheReadInputTokens: cached } : {}),
    },
    metrics: { latencyMs: 0 },
  };
}

/** The Bedrock error an OpenAI-compatible server's error answer stands for, by HTTP status. */
const ERROR_BY_STATUS: Readonly<Record<number, readonly [string, number]>> = {
  400: ["ValidationException", 400],
  401: ["AccessDeniedException", 403],
  403: ["AccessDeniedException", 403],
  404: ["ResourceNotFoundException", 404],
  408: ["ModelTimeoutException", 408],
  413: ["ValidationException", 400],
  422: ["ValidationException", 400],
  429: ["ThrottlingException", 429],
  500: ["InternalServerException", 500],
  502: ["ServiceUnavailableException", 503],
  503: ["ServiceUnavailableException", 503],
  504: ["ModelTimeoutException", 408],
};

/**
 * An error answer of the server as the Bedrock error the model steps classify (retryable or fatal
 * by name): 400 → ValidationException, 429 → ThrottlingException, 5xx → retryable service errors.
 * The message keeps the server's own words and names the URL.
 */
export function chatErrorToBedrock(status: number, body: string, url: string): AwsApiError {
  const [code, statusCode] =
    ERROR_BY_STATUS[status] ??
    (status >= 500 ? ["InternalServerException", 500] : ["ValidationException", 400]);
  let detail = body.trim().slice(0, 2_000);
  try {
    const parsed: unknown = JSON.parse(body);
    const error = typeof parsed === "object" && parsed !== null ? Reflect.get(parsed, "error") : undefined;
    const message = typeof error === "string" ? error : (Reflect.get(Object(error), "message") as unknown);
    if (typeof message === "string") detail = message;
  } catch {
    // Not JSON: the text is the detail.
  }
  return new AwsApiError(code, `${url} answered ${status}: ${detail || "(no body)"}`, statusCode);
}
