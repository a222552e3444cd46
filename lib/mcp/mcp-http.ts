import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { GoalLoopsClient } from "../client/goal-loops-client";
import { createGoalsMcpServer } from "./goals-mcp-server";

export interface McpHttpOptions {
  /** The goals API client for this request's caller (its Authorization is passed on). */
  readonly clientFor: (authorization: string | undefined) => GoalLoopsClient;
  readonly version: string;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** `localhost`, `127.0.0.1` or `[::1]`, with any port: the only names a loopback endpoint answers to. */
function isLoopbackName(hostWithPort: string): boolean {
  const host = hostWithPort.startsWith("[")
    ? hostWithPort.slice(0, hostWithPort.indexOf("]") + 1)
    : hostWithPort.split(":")[0];
  return LOOPBACK_HOSTS.has((host ?? "").toLowerCase());
}

/**
 * Why a request is refused before MCP sees it: a foreign `Host` (DNS rebinding: a web page whose
 * name resolves to 127.0.0.1) or a foreign `Origin` (a browser page of another site).
 */
export function foreignCaller(headers: IncomingMessage["headers"]): string | undefined {
  const host = headers.host ?? "";
  if (!isLoopbackName(host)) return `Host '${host.slice(0, 100)}' is not a loopback name`;
  const origin = headers.origin;
  if (origin === undefined || origin === "null") return undefined;
  try {
    const url = new URL(origin);
    if (LOOPBACK_HOSTS.has(url.hostname === "::1" ? "[::1]" : url.hostname)) return undefined;
  } catch {
    // An Origin that is not a URL is foreign too.
  }
  return `Origin '${origin.slice(0, 100)}' is not a loopback origin`;
}

function jsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

/** A tools/call whose caller asked for progress: only it is answered as an SSE stream (see below). */
function wantsProgress(body: unknown): boolean {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const { method, params } = body as { method?: unknown; params?: { _meta?: { progressToken?: unknown } } };
  return method === "tools/call" && params?._meta?.progressToken !== undefined;
}

/**
 * One request to the Streamable HTTP endpoint (`/mcp`), stateless: a new server and transport per
 * POST, so nothing of one caller outlives its request and every call carries its own identity.
 * Answers are JSON, except a tools/call that carries a progress token: its answer is an SSE stream
 * so the progress notifications reach the caller before the result. GET (a standalone stream) and
 * DELETE (ending a session) have no meaning without sessions: 405.
 */
export async function serveMcpRequest(
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  options: McpHttpOptions,
): Promise<void> {
  const foreign = foreignCaller(req.headers);
  if (foreign !== undefined) return jsonRpcError(res, 403, -32000, `Forbidden: ${foreign}`);
  if (req.method !== "POST") {
    return jsonRpcError(res, 405, -32000, "Method not allowed: this endpoint is stateless; POST only", {
      allow: "POST",
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    return jsonRpcError(res, 400, -32700, "Parse error: the body is not JSON");
  }
  const authorization = req.headers.authorization;
  const server = createGoalsMcpServer(options.clientFor(authorization), options.version);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !wantsProgress(parsed),
  });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, parsed);
}

/**
 * `goal-loops mcp --listen`: the same endpoint on 127.0.0.1 only, at `/mcp`, for hosts that speak
 * HTTP. Resolves with its URL once listening.
 */
export async function startMcpHttpServer(
  options: McpHttpOptions & { port: number },
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = (req.url ?? "").split("?")[0];
      if (path !== "/mcp") return jsonRpcError(res, 404, -32000, "Not found: the MCP endpoint is /mcp");
      serveMcpRequest(req, res, Buffer.concat(chunks), options).catch(() => {
        if (!res.headersSent) jsonRpcError(res, 500, -32603, "Internal error");
        else res.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
