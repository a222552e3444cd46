import * as z from "../core/zod";
import type { BuiltInTool, JsonObject } from "./built-in-tool";
import { ToolCallError } from "./tool-call-error";

export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Response headers the model gets; the rest (dates, cookies, request ids) vary per call and would only add noise. */
const KEPT_HEADERS = ["content-type", "content-length", "location", "etag", "last-modified"] as const;

export const HttpRequestInputSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .strictObject({
      method: z.enum(HTTP_METHODS).register(z.globalRegistry, {
        description: "HTTP method; anything but GET changes something and waits for a human approval",
      }),
      url: z
        .url({ protocol: /^https?$/, error: "must be an absolute http or https URL" })
        .check(z.maxLength(2048))
        .register(z.globalRegistry, {
          description: "Absolute http(s) URL; its host must be in the deployment's allow-list",
        }),
      body: z
        .optional(z.string().check(z.maxLength(100_000)))
        .register(z.globalRegistry, { description: "Request body (not allowed with GET)" }),
    })
    .check(
      z.refine((input) => input.method !== "GET" || input.body === undefined, {
        path: ["body"],
        message: "a GET request has no body",
      }),
    ),
);
export type HttpRequestInput = z.output<typeof HttpRequestInputSchema>;

function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // undici reports network errors as `TypeError: fetch failed` with the reason (ECONNREFUSED …) in `cause`.
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}

/** Reads at most `maxBytes` of the body and drops the rest, so a huge response cannot exhaust memory. */
async function readBounded(
  response: Response,
  maxBytes: number,
): Promise<{ body: string; truncated: boolean }> {
  if (!response.body) return { body: "", truncated: false };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let body = "";
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { body: body + decoder.decode(), truncated: false };
    const room = maxBytes - received;
    if (value.byteLength > room) {
      // `stream: true` holds back a character cut in half at the bound instead of emitting U+FFFD.
      body += decoder.decode(value.subarray(0, room), { stream: true });
      await reader.cancel();
      return { body, truncated: true };
    }
    body += decoder.decode(value, { stream: true });
    received += value.byteLength;
  }
}

/**
 * GET is a read; every other method may change something outside the goal, so it is irreversible:
 * the runner sends it only when a human approved the call or the GoalSpec pre-authorized the tool.
 * Every method reaches allow-listed hosts only.
 */
export const httpRequestTool: BuiltInTool<typeof HttpRequestInputSchema> = {
  name: "http_request",
  description:
    "Send an HTTP request to an allow-listed host and get the status, a few headers and the body (bounded). GET runs at once; other methods wait for a human approval. Redirects are not followed: the Location header is returned.",
  inputSchema: HttpRequestInputSchema,
  risk: (input) => (input.method === "GET" ? "read" : "irreversible"),
  refuse(input, env) {
    const host = new URL(input.url).hostname.toLowerCase();
    const allowed = env.http.allowedHosts.map((name) => name.trim().toLowerCase());
    if (!allowed.includes(host)) {
      const list = allowed.length === 0 ? "the allow-list is empty" : `allowed: [${allowed.join(", ")}]`;
      return new ToolCallError(
        "HttpRequestRefused",
        `Refused ${input.method} ${input.url}: host '${host}' is not in the allow-list (${list})`,
      );
    }
    return undefined;
  },
  async execute(input, env) {
    try {
      const response = await env.http.fetch(input.url, {
        method: input.method,
        ...(input.body === undefined ? {} : { body: input.body }),
        // A request that changes something carries the call's key, so a server that honours
        // Idempotency-Key (IETF draft) applies a retried Act's repeat once.
        ...(input.method === "GET" ? {} : { headers: { "Idempotency-Key": env.context.idempotencyKey } }),
        // A redirect could lead to a host outside the allow-list: hand the Location back instead.
        redirect: "manual",
        signal: AbortSignal.timeout(env.http.timeoutMs),
      });
      const headers: JsonObject = {};
      for (const name of KEPT_HEADERS) {
        const value = response.headers.get(name);
        if (value !== null) headers[name] = value;
      }
      const { body, truncated } = await readBounded(response, env.http.maxResponseBytes);
      const summary = { status: response.status, headers, bodyTruncated: truncated };
      return { value: { ...summary, body }, text: body, summary };
    } catch (error) {
      const reason =
        error instanceof Error && error.name === "TimeoutError"
          ? `no complete response within ${env.http.timeoutMs} ms`
          : describeFailure(error);
      throw new ToolCallError("HttpRequestFailed", `${input.method} ${input.url} failed: ${reason}`, {
        cause: error,
      });
    }
  },
};
