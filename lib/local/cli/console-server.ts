import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { ApiFetch } from "../../client/index";
import { consoleFile } from "../api/console-assets";
import { listen, type RunningServer } from "../shared/listen";

export interface ConsoleServerOptions {
  /** The goals API the console talks to (the local stack, or a deployed stage URL). */
  readonly apiUrl: string;
  /** How requests reach it: signed with SigV4 for a deployed API. */
  readonly apiFetch: ApiFetch;
  /** On 127.0.0.1; 0 picks a free one. */
  readonly port: number;
}

/** Request headers the console's calls need passed on; everything else (cookies, auth) stays here. */
const FORWARDED_REQUEST_HEADERS = ["content-type", "accept", "last-event-id", "idempotency-key"];
const FORWARDED_RESPONSE_HEADERS = ["content-type", "cache-control", "location", "retry-after", "allow"];

/**
 * `goal-loops console`: the web console on 127.0.0.1, and every other path proxied to the goals
 * API with the caller's credentials (SigV4), so the page calls its own origin and no new auth
 * surface is deployed. Responses stream through (the event stream stays live).
 */
export async function startConsoleServer(options: ConsoleServerOptions): Promise<RunningServer> {
  const base = options.apiUrl.replace(/\/+$/, "");
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://console");
    try {
      if (req.method === "GET") {
        const file = await consoleFile(url.pathname);
        if (file) return send(res, 200, file.contentType, file.body);
        if (url.pathname === "/") {
          res.writeHead(302, { location: "/console" });
          return res.end();
        }
      }
      await proxy(options.apiFetch, `${base}${url.pathname}${url.search}`, req, res);
    } catch (error) {
      if (res.headersSent) return res.end();
      const message = error instanceof Error ? error.message : String(error);
      send(res, 502, "application/json", JSON.stringify({ error: { code: "ConsoleProxyError", message } }));
    }
  });
  return listen(server, options.port);
}

async function proxy(apiFetch: ApiFetch, target: string, req: IncomingMessage, res: ServerResponse) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.from(chunk));
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = req.headers[name];
    if (typeof value === "string") headers[name] = value;
  }
  const gone = new AbortController();
  res.on("close", () => gone.abort());
  const method = req.method ?? "GET";
  const response = await apiFetch(target, {
    method,
    headers,
    ...(chunks.length > 0 && method !== "GET" ? { body: Buffer.concat(chunks).toString("utf8") } : {}),
    signal: gone.signal,
  });
  const out: Record<string, string> = {};
  for (const name of FORWARDED_RESPONSE_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) out[name] = value;
  }
  res.writeHead(response.status, out);
  res.flushHeaders();
  if (response.body === null) return res.end();
  try {
    for await (const chunk of response.body) res.write(chunk);
  } catch {
    // The client or the API went away mid-stream.
  }
  res.end();
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { "content-type": contentType, "cache-control": "no-store" });
  res.end(body);
}
