import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { ApiFetch } from "../../client/index";
import { consoleFile } from "../api/console-assets";
import { listen, type RunningServer } from "../shared/listen";
import {
  bearerHeader,
  CONSOLE_SIGN_IN_PATH,
  CONSOLE_TOKEN_PATH,
  type ConsoleIssuerOptions,
  discoverConsoleIssuer,
} from "./console-sign-in";

export interface ConsoleServerOptions {
  /** The goals API the console talks to (the local stack, or a deployed stage URL). */
  readonly apiUrl: string;
  /** How requests reach it: signed with SigV4 for a deployed API. */
  readonly apiFetch: ApiFetch;
  /** On 127.0.0.1; 0 picks a free one. */
  readonly port: number;
  /** The API's OIDC issuer and the console's client id there: the page then offers a sign-in. */
  readonly issuer?: ConsoleIssuerOptions;
}

/**
 * Request headers the console's calls need passed on; everything else (cookies) stays here. The
 * page's own `Authorization: Bearer` goes on too, but through `bearerHeader` (see proxy).
 */
const FORWARDED_REQUEST_HEADERS = ["content-type", "accept", "last-event-id", "idempotency-key"];
const FORWARDED_RESPONSE_HEADERS = ["content-type", "cache-control", "location", "retry-after", "allow"];

/**
 * `goal-loops console`: the web console on 127.0.0.1, and every other path proxied to the goals
 * API with the caller's credentials (SigV4), so the page calls its own origin and no new auth
 * surface is deployed. Responses stream through (the event stream stays live). With an issuer, the
 * page signs a person in there (console-sign-in.ts) and its bearer-token calls go on as they are.
 */
export async function startConsoleServer(options: ConsoleServerOptions): Promise<RunningServer> {
  const base = options.apiUrl.replace(/\/+$/, "");
  // Read once at start, so a wrong --issuer fails the command rather than the first sign-in.
  const issuer = options.issuer === undefined ? undefined : await discoverConsoleIssuer(options.issuer);
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://console");
    try {
      if (issuer !== undefined && req.method === "GET" && url.pathname === CONSOLE_SIGN_IN_PATH) {
        return send(res, 200, "application/json", JSON.stringify(issuer.signIn));
      }
      if (issuer !== undefined && req.method === "POST" && url.pathname === CONSOLE_TOKEN_PATH) {
        return await relayTokenRequest(issuer.tokenEndpoint, req, res);
      }
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

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/**
 * The page's authorization-code exchange, passed to the issuer's token endpoint from here: the
 * issuer need not allow the page's origin (CORS), and the client is public (PKCE, no secret), so
 * nothing is added to the form.
 */
async function relayTokenRequest(tokenEndpoint: string, req: IncomingMessage, res: ServerResponse) {
  const body = (await readBody(req)).toString("utf8");
  const response = await fetch(tokenEndpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body,
  });
  send(
    res,
    response.status,
    response.headers.get("content-type") ?? "application/json",
    await response.text(),
  );
}

async function proxy(apiFetch: ApiFetch, target: string, req: IncomingMessage, res: ServerResponse) {
  const body = await readBody(req);
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = req.headers[name];
    if (typeof value === "string") headers[name] = value;
  }
  // A signed-in page's call is that person's: it goes with their token, never with this
  // machine's AWS credentials (nor the command's --token).
  const bearer = bearerHeader(req.headers.authorization);
  if (bearer !== undefined) headers.authorization = bearer;
  const forward: ApiFetch = bearer === undefined ? apiFetch : (url, init) => fetch(url, init);
  const gone = new AbortController();
  res.on("close", () => gone.abort());
  const method = req.method ?? "GET";
  const response = await forward(target, {
    method,
    headers,
    ...(body.length > 0 && method !== "GET" ? { body: body.toString("utf8") } : {}),
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
