import type { JsonObject } from "../shared/cloud-assembly-model";
import { AwsApiError } from "../shared/errors";
import {
  type ChatCompletionRequest,
  chatCompletionToConverse,
  chatErrorToBedrock,
  converseToChatCompletion,
} from "./openai-chat-translation";

/** Ollama's OpenAI-compatible API on its default port: what `--openai-url` defaults to. */
export const DEFAULT_OPENAI_URL = "http://127.0.0.1:11434/v1";

/** Where `openai:<model>` calls go. */
export interface OpenAiServer {
  /** The API base, `…/v1`: requests go to `<baseUrl>/chat/completions`. */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` (llama.cpp, vLLM, LM Studio started with a key). */
  readonly apiKey?: string;
}

/**
 * Below the model Lambda's own Converse timeout (300 s, bedrock-runtime-client.ts), so a slow local
 * model is answered as a retryable ModelTimeoutException rather than cut off by the caller.
 */
const CHAT_TIMEOUT_MS = 290_000;

/** `openai:llama3.1` → `llama3.1`; undefined for any other model id. */
export function openAiModelOf(modelId: string): string | undefined {
  const match = /^openai:(.+)$/.exec(modelId);
  return match?.[1];
}

function chatUrl(server: OpenAiServer): string {
  return `${server.baseUrl.replace(/\/+$/, "")}/chat/completions`;
}

/** Why a request never got an answer: the cause's code (ECONNREFUSED) when the runtime gives one. */
function networkReason(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  const code = cause instanceof Error ? Reflect.get(cause, "code") : undefined;
  if (typeof code === "string") return code;
  return cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error);
}

/** POSTs one Chat Completions request and gives back the parsed answer, or the Bedrock error it stands for. */
async function postChatCompletion(server: OpenAiServer, body: ChatCompletionRequest): Promise<unknown> {
  const url = chatUrl(server);
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(server.apiKey ? { authorization: `Bearer ${server.apiKey}` } : {}),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(CHAT_TIMEOUT_MS),
    });
  } catch (error) {
    if (error instanceof Error && error.name === "TimeoutError") {
      throw new AwsApiError(
        "ModelTimeoutException",
        `${url} did not answer within ${CHAT_TIMEOUT_MS} ms`,
        408,
      );
    }
    throw new AwsApiError(
      "ServiceUnavailableException",
      `The OpenAI-compatible server at ${url} cannot be reached (${networkReason(error)}): start it (ollama serve) or pass npm start -- --openai-url <url>`,
      503,
    );
  }
  const text = await response.text();
  if (!response.ok) throw chatErrorToBedrock(response.status, text, url);
  try {
    return JSON.parse(text);
  } catch {
    throw new AwsApiError("ModelErrorException", `${url} answered ${response.status} with no JSON body`, 424);
  }
}

/**
 * One Converse call answered by an OpenAI-compatible server: the request translated to Chat
 * Completions, sent, and the answer translated back (openai-chat-translation.ts).
 */
export async function converseWithOpenAi(
  server: OpenAiServer,
  model: string,
  request: JsonObject,
  toolUseIdOf: (index: number) => string,
): Promise<JsonObject> {
  const answer = await postChatCompletion(server, converseToChatCompletion(request, model));
  return chatCompletionToConverse(answer, toolUseIdOf);
}
