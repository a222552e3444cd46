import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted answer: a chat completion (200), or an error status with its body. */
export type ScriptedChatAnswer =
  | { readonly completion: Record<string, unknown> }
  | { readonly status: number; readonly body: Record<string, unknown> };

/** A request the server got: its path, headers and JSON body. */
export interface ChatRequestSeen {
  readonly path: string;
  readonly authorization: string | undefined;
  readonly body: Record<string, unknown>;
}

export interface ChatCompletionsServer {
  /** The API base to pass as `--openai-url` (`http://127.0.0.1:<port>/v1`). */
  readonly baseUrl: string;
  readonly requests: readonly ChatRequestSeen[];
  close(): Promise<void>;
}

/** A chat completion as Ollama's OpenAI-compatible API answers it, with the given message and finish reason. */
export function completion(
  message: Record<string, unknown>,
  finishReason: string,
  usage = { prompt_tokens: 1200, completion_tokens: 40 },
): Record<string, unknown> {
  return {
    id: "chatcmpl-123",
    object: "chat.completion",
    created: 1_767_225_600,
    model: "test",
    system_fingerprint: "fp_ollama",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finishReason }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

/**
 * An OpenAI-compatible server on 127.0.0.1 that answers `POST /v1/chat/completions` with scripted
 * answers in order (Temporal's fake model: canned answers, every request kept, a 500 naming the
 * request number once the script runs out), for `openai:` models of the local stack.
 */
export async function startChatCompletionsServer(
  answers: readonly ScriptedChatAnswer[],
): Promise<ChatCompletionsServer> {
  const requests: ChatRequestSeen[] = [];
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(Buffer.from(chunk));
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      return send(res, 404, { error: { message: `no route ${req.method} ${req.url}`, type: "not_found" } });
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return send(res, 400, { error: { message: "body is not JSON", type: "invalid_request_error" } });
    }
    const index = requests.length;
    requests.push({ path: req.url, authorization: req.headers.authorization, body });
    const answer = answers[index];
    if (answer === undefined) {
      return send(res, 500, {
        error: {
          message: `no scripted answer for request ${index} (${answers.length} scripted)`,
          type: "server_error",
        },
      });
    }
    if ("completion" in answer) return send(res, 200, answer.completion);
    send(res, answer.status, answer.body);
  };
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolveListen) => server.listen(0, "127.0.0.1", resolveListen));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}
