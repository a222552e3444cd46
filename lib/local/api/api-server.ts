import { randomUUID } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import * as z from "zod";
import type { BearerOutcome, JwtAuthorizerContext } from "../../../lambdas/adapters/oidc/authorize-bearer";
import { clip } from "../../../lambdas/core/goal/text";
import type { ApiRouteSpec, JsonObject, JsonValue } from "../shared/cloud-assembly-model";
import { MalformedPathSegmentError } from "../shared/errors";
import { listen, type RunningServer } from "../shared/listen";
import { allowedMethods, guardedDecoder, matchRoute, type SegmentDecoder } from "./api-routes";
import type { LocalRequest, LocalResponse } from "./local-issuer";
import type { ObservedResponse } from "./openapi-response-check";

export interface ApiServerOptions {
  readonly routes: readonly ApiRouteSpec[];
  /** Invokes the route's function with the proxy event (the local LambdaHost). */
  readonly invokeFunction: (functionArn: string, event: JsonValue) => Promise<JsonValue>;
  /**
   * Invokes a streaming route's function (InvokeWithResponseStream): its bytes reach `onChunk` as
   * it writes them. Without it, streaming routes answer 502.
   */
  readonly invokeStreamingFunction?: (
    functionArn: string,
    event: JsonValue,
    onChunk: (chunk: Uint8Array) => void,
    signal: AbortSignal,
  ) => Promise<void>;
  /** @default 8787 */
  readonly port?: number;
  /**
   * Function errors, malformed answers (502s) and unexpected failures (500s, with their request
   * id) are reported here. @default console.error
   */
  readonly onError?: (message: string, error?: unknown) => void;
  /**
   * Local-only GET routes answered by the runtime itself (e.g. `/_local/outbox`), never by a
   * function: they do not exist in API Gateway.
   */
  readonly localRoutes?: Readonly<Record<string, () => Promise<JsonValue>>>;
  /**
   * Sees every answer a function gave (not the streamed ones), with the route's template: the
   * end-to-end suite checks each against the OpenAPI document (openapi-response-check.ts).
   */
  readonly onResponse?: (answer: ObservedResponse) => void;
  /**
   * Local-only endpoints that answer the raw request themselves, by exact path (the MCP endpoint at
   * `/mcp`): they get the body as read, and need not be in the API's routes.
   */
  readonly rawRoutes?: Readonly<
    Record<string, (req: IncomingMessage, res: ServerResponse, body: Buffer) => Promise<void>>
  >;
  /** Local-only GET pages (the web console at `/console`): the file for a path, or undefined. */
  readonly pages?: (pathname: string) => Promise<{ contentType: string; body: string } | undefined>;
  /**
   * Local-only requests of any method answered by the runtime (the local OIDC issuer under
   * `/_local/oidc` and `/_local/token`): an answer, or undefined to route the request as usual.
   */
  readonly localHandler?: (request: LocalRequest) => Promise<LocalResponse | undefined>;
  /**
   * Checks `Authorization: Bearer …` as the deployed JWT authorizer does (the same code): a denied
   * request is answered 401 or 403 in the API's error shape, an allowed one reaches the function
   * with the authorizer's context and no IAM identity. A request without a bearer token is the
   * unsigned loopback caller (LOCAL_IDENTITY). Absent: bearer tokens are ignored.
   */
  readonly authorizeBearer?: (authorization: string) => Promise<BearerOutcome>;
}

/** The caller every local request is made as: the API maps it to tenant "local". */
export const LOCAL_IDENTITY = {
  accountId: "local",
  caller: "local",
  user: "local",
  userArn: "arn:aws:iam::local:user/local",
} as const;

/** API Gateway's payload limit for REST APIs: a larger body is answered 413, as there. */
export const MAX_LOCAL_REQUEST_BYTES = 10 * 1024 * 1024;

/**
 * The test-only switch that breaks one guard on purpose: with `path-decoding`, path parameters are
 * decoded with the bare `decodeURIComponent`, so a bad percent escape becomes a 500. Only the fuzz
 * suite sets it, to show that it finds the broken guard and prints the minimal request. Read per
 * request so a test can turn it on and off around one run.
 */
export const BREAK_GUARD_VARIABLE = "GOAL_LOOPS_TEST_BREAK_GUARD";

const ProxyResultSchema = z.object({
  statusCode: z.number().int().min(100).max(599),
  headers: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).nullish(),
  multiValueHeaders: z.record(z.string(), z.array(z.union([z.string(), z.number(), z.boolean()]))).nullish(),
  body: z.string().nullish(),
  isBase64Encoded: z.boolean().nullish(),
});

/** What a request's method, path and query are, as the client sent them (no URL normalisation). */
interface RequestTarget {
  readonly method: string;
  /** The path as sent, still percent-encoded, without the query. */
  readonly path: string;
  readonly query: URLSearchParams;
}

/**
 * The REST API on 127.0.0.1, routed as API Gateway routes the template's methods: each request
 * becomes a REST (v1) Lambda proxy event for the route's function, and the function's proxy
 * result becomes the response. No request can stop the server: every handler is guarded, an
 * unexpected error is a 500 in the API's error shape carrying a request id (and logged with it),
 * and header and query names are kept in Maps, never as keys of a plain object.
 */
export async function startApiServer(options: ApiServerOptions): Promise<RunningServer> {
  const onError =
    options.onError ?? ((message: string, error?: unknown) => console.error(message, error ?? ""));
  const localRoutes = new Map(Object.entries(options.localRoutes ?? {}));
  const rawRoutes = new Map(Object.entries(options.rawRoutes ?? {}));
  const server = http.createServer((req, res) => {
    const requestId = randomUUID();
    serve(req, res, requestId).catch((error: unknown) => {
      onError(
        `${clip(req.method ?? "?", 20)} ${clip(req.url ?? "", 200)}: unexpected error (request ${requestId})`,
        error,
      );
      answerInternalError(res, requestId);
    });
  });
  // A request Node cannot even parse (bad request line, oversized headers): a 400 in the API's shape.
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) return socket.destroy();
    const body = JSON.stringify({
      error: { code: "BadRequest", message: `malformed HTTP request (${error.code ?? "parse error"})` },
    });
    socket.end(
      `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });

  async function serve(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const target = requestTarget(req);
    const body = await readBody(req);
    if (target === undefined) {
      return sendError(res, 400, "BadRequest", "the request target must be a path starting with '/'");
    }
    if (body === undefined) {
      return sendError(
        res,
        413,
        "RequestTooLarge",
        `the body is larger than ${MAX_LOCAL_REQUEST_BYTES} bytes`,
      );
    }
    const { method, path } = target;
    const raw = rawRoutes.get(path);
    if (raw !== undefined) return raw(req, res, body);
    const handled = await options.localHandler?.({
      method,
      path,
      query: target.query,
      body: body.toString("utf8"),
    });
    if (handled !== undefined) {
      res.writeHead(handled.status, handled.headers);
      res.end(handled.body);
      return;
    }
    const local = localRoutes.get(path);
    if (local !== undefined && method === "GET") {
      try {
        return sendJson(res, 200, await local());
      } catch (error) {
        onError(`${method} ${path}: the local route failed (request ${requestId})`, error);
        return answerInternalError(res, requestId);
      }
    }
    const page =
      method === "GET"
        ? await options.pages?.(path).catch((error: unknown) => {
            onError(`${method} ${path}: the page could not be built (request ${requestId})`, error);
            return { contentType: "text/plain", body: "the page could not be built; see the runtime's log" };
          })
        : undefined;
    if (page !== undefined) {
      res.writeHead(200, { "content-type": page.contentType, "cache-control": "no-store" });
      res.end(page.body);
      return;
    }
    let match: ReturnType<typeof matchRoute>;
    try {
      match = matchRoute(options.routes, method, path, decoderForThisRequest());
    } catch (error) {
      if (!(error instanceof MalformedPathSegmentError)) throw error;
      const message = `'${clip(error.segment, 100)}' is not valid percent-encoding`;
      return sendJson(res, 400, {
        error: {
          code: "ValidationError",
          message: `Invalid path: ${error.parameter}: ${message}`,
          issues: [{ path: error.parameter, message }],
        },
      });
    }
    if (match === undefined) return sendUnmatched(res, method, path);
    const authorization = bearerHeader(req);
    let authorizer: JwtAuthorizerContext | undefined;
    if (authorization !== undefined && options.authorizeBearer !== undefined) {
      const outcome = await options.authorizeBearer(authorization);
      if (outcome.kind === "deny") return sendError(res, outcome.status, outcome.code, outcome.message);
      authorizer = outcome.context;
    }
    const event = proxyEvent(req, target, match.route, match.pathParameters, body, requestId, authorizer);
    if (match.route.streaming) return streamResponse(options, onError, match.route, event, req, res);
    let result: JsonValue;
    try {
      result = await options.invokeFunction(match.route.functionArn, event);
    } catch (error) {
      onError(`${method} ${clip(path, 200)}: the function failed (request ${requestId})`, error);
      return sendJson(res, 502, { message: "Internal server error" });
    }
    const parsed = ProxyResultSchema.safeParse(result);
    if (!parsed.success) {
      onError(`${method} ${clip(path, 200)}: malformed Lambda proxy response: ${parsed.error.message}`);
      return sendJson(res, 502, { message: "Internal server error" });
    }
    const { statusCode, headers, multiValueHeaders, body: answer, isBase64Encoded } = parsed.data;
    for (const [name, value] of Object.entries(headers ?? {})) res.setHeader(name, String(value));
    for (const [name, values] of Object.entries(multiValueHeaders ?? {}))
      res.setHeader(name, values.map(String));
    res.statusCode = statusCode;
    res.end(isBase64Encoded ? Buffer.from(answer ?? "", "base64") : (answer ?? ""));
    if (!isBase64Encoded) {
      const header = (wanted: string): string | undefined => {
        const value = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === wanted)?.[1];
        return value === undefined ? undefined : String(value);
      };
      options.onResponse?.({
        method,
        route: match.route.resourcePath,
        status: statusCode,
        contentType: header("content-type"),
        allow: header("allow"),
        body: answer ?? "",
      });
    }
  }

  /** 405 with Allow when another method serves the path, else 404; both in the API's error shape. */
  function sendUnmatched(res: ServerResponse, method: string, path: string): void {
    const allow = allowedMethods(options.routes, path);
    const shown = `${clip(method, 20)} ${clip(path, 200)}`;
    if (allow.length > 0) {
      res.setHeader("allow", allow.join(", "));
      sendError(res, 405, "MethodNotAllowed", `${shown} is not allowed; allowed: ${allow.join(", ")}`);
      return;
    }
    const known = [...new Set(options.routes.map((r) => `${r.method} ${r.resourcePath}`))].join(", ");
    sendError(
      res,
      404,
      "RouteNotFound",
      `No route for ${shown} (the local API serves ${known || "no route"})`,
    );
  }

  return listen(server, options.port ?? 8787);
}

/** The `Authorization` header when it carries a bearer token (any other scheme is the loopback caller). */
function bearerHeader(req: IncomingMessage): string | undefined {
  const value = req.headers.authorization;
  return typeof value === "string" && /^bearer\s/i.test(value) ? value : undefined;
}

function guardBroken(): boolean {
  return process.env[BREAK_GUARD_VARIABLE] === "path-decoding";
}

function decoderForThisRequest(): SegmentDecoder {
  return guardBroken() ? (_parameter, segment) => decodeURIComponent(segment) : guardedDecoder;
}

/** Method, raw path and query of the request; undefined for a target that is not a path (`*`, a full URL). */
function requestTarget(req: IncomingMessage): RequestTarget | undefined {
  const raw = req.url ?? "/";
  if (!raw.startsWith("/")) return undefined;
  const queryAt = raw.indexOf("?");
  return {
    method: (req.method ?? "GET").toUpperCase(),
    path: queryAt === -1 ? raw : raw.slice(0, queryAt),
    query: new URLSearchParams(queryAt === -1 ? "" : raw.slice(queryAt + 1)),
  };
}

/** The whole body, or undefined when it is larger than API Gateway takes (the rest is read and dropped). */
async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size <= MAX_LOCAL_REQUEST_BYTES) chunks.push(Buffer.from(chunk));
  }
  return size > MAX_LOCAL_REQUEST_BYTES ? undefined : Buffer.concat(chunks);
}

/** The metadata before the 8 NUL bytes of a streamed HTTP integration response. */
const PreludeSchema = z.object({
  statusCode: z.number().int().min(100).max(599).optional(),
  headers: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).nullish(),
  multiValueHeaders: z.record(z.string(), z.array(z.union([z.string(), z.number(), z.boolean()]))).nullish(),
  cookies: z.array(z.string()).nullish(),
});
const DELIMITER = Buffer.alloc(8);
/** How much of a stream the contract check reads: its first frames say whether they conform. */
const MAX_OBSERVED_STREAM_BYTES = 1024 * 1024;

/**
 * A response-streaming route, as API Gateway serves one: the function's stream starts with a JSON
 * prelude (status, headers) and 8 NUL bytes (`awslambda.HttpResponseStream.from`); what follows is
 * the body, passed on byte by byte as it comes. A client that goes away closes the function's stream.
 */
async function streamResponse(
  options: ApiServerOptions,
  onError: (message: string, error?: unknown) => void,
  route: ApiRouteSpec,
  event: JsonObject,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const where = `${req.method} ${route.resourcePath}`;
  if (options.invokeStreamingFunction === undefined) {
    onError(`${where}: streaming routes are not served here`);
    return sendJson(res, 502, { message: "Internal server error" });
  }
  const gone = new AbortController();
  res.on("close", () => gone.abort());
  let head: Buffer | undefined = Buffer.alloc(0);
  // What the client was sent, for onResponse (the contract check) when the stream ends.
  const seen: { status?: number; contentType?: string; allow?: string; chunks: Buffer[]; bytes: number } = {
    chunks: [],
    bytes: 0,
  };
  const keep = (chunk: Uint8Array) => {
    if (options.onResponse === undefined || seen.bytes >= MAX_OBSERVED_STREAM_BYTES) return;
    seen.chunks.push(Buffer.from(chunk));
    seen.bytes += chunk.length;
  };
  const onChunk = (chunk: Uint8Array) => {
    if (head === undefined) {
      if (!res.writableEnded) res.write(chunk);
      keep(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf(DELIMITER);
    if (end === -1) return;
    const prelude = PreludeSchema.safeParse(parseJsonOrUndefined(head.subarray(0, end).toString("utf8")));
    const body = head.subarray(end + DELIMITER.length);
    head = undefined;
    if (!prelude.success) {
      onError(`${where}: the stream does not start with an HTTP integration prelude`);
      res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ message: "Internal server error" }));
      gone.abort();
      return;
    }
    const { statusCode = 200, headers, multiValueHeaders, cookies } = prelude.data;
    for (const [name, value] of Object.entries(headers ?? {})) res.setHeader(name, String(value));
    for (const [name, values] of Object.entries(multiValueHeaders ?? {}))
      res.setHeader(name, values.map(String));
    if (cookies && cookies.length > 0) res.setHeader("set-cookie", cookies);
    res.writeHead(statusCode);
    // Headers go out at once: a client of an event stream must see them before the first event.
    res.flushHeaders();
    if (body.length > 0) res.write(body);
    const header = (name: string) => {
      const value = res.getHeader(name);
      return value === undefined ? undefined : String(value);
    };
    Object.assign(seen, { status: statusCode, contentType: header("content-type"), allow: header("allow") });
    keep(body);
  };
  try {
    await options.invokeStreamingFunction(route.functionArn, event, onChunk, gone.signal);
  } catch (error) {
    // A client that went away, or a runtime shutting down, ends a stream: not a function failure.
    if (gone.signal.aborted) return;
    onError(`${where}: the function failed`, error);
    if (!res.headersSent) return sendJson(res, 502, { message: "Internal server error" });
  }
  if (!res.headersSent && head !== undefined) {
    onError(`${where}: the stream ended before its HTTP integration prelude`);
    return sendJson(res, 502, { message: "Internal server error" });
  }
  res.end();
  if (seen.status !== undefined) {
    options.onResponse?.({
      method: req.method ?? "GET",
      route: route.resourcePath,
      status: seen.status,
      contentType: seen.contentType,
      allow: seen.allow,
      body: Buffer.concat(seen.chunks).toString("utf8"),
    });
  }
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function sendJson(res: ServerResponse, status: number, body: JsonValue): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, { error: { code, message } });
}

/** The 500 of an unexpected failure: only the request id, which the log line carries too. */
function answerInternalError(res: ServerResponse, requestId: string): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  sendJson(res, 500, { error: { code: "InternalError", message: "internal error", requestId } });
}

/** Header or query values by name, in the order sent; a Map, so no name can reach a prototype. */
function multiValues(pairs: Iterable<readonly [string, string]>): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const [name, value] of pairs) values.set(name, [...(values.get(name) ?? []), value]);
  return values;
}

/** Own-property objects for the event (JSON): `{"__proto__": …}` stays an ordinary key. */
function lastValues(values: Map<string, string[]>): Record<string, string> {
  return Object.fromEntries([...values].map(([name, all]) => [name, all.at(-1) ?? ""]));
}

function headerPairs(req: IncomingMessage): [string, string][] {
  const pairs: [string, string][] = [];
  // rawHeaders keeps the names as the client sent them, as API Gateway does.
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    pairs.push([req.rawHeaders[i] ?? "", req.rawHeaders[i + 1] ?? ""]);
  }
  return pairs;
}

/** An API Gateway REST (v1) proxy event, as AWS builds it for a Lambda proxy integration. */
function proxyEvent(
  req: IncomingMessage,
  target: RequestTarget,
  route: ApiRouteSpec,
  pathParameters: Record<string, string> | null,
  body: Buffer,
  requestId: string,
  authorizer?: JwtAuthorizerContext,
): JsonObject {
  const { method, path, query } = target;
  const headers = multiValues(headerPairs(req));
  const multiValueQuery = multiValues(query);
  const hasQuery = multiValueQuery.size > 0;
  const now = new Date();
  return {
    resource: route.resourcePath,
    path,
    httpMethod: method,
    headers: lastValues(headers),
    multiValueHeaders: Object.fromEntries(headers),
    queryStringParameters: hasQuery ? lastValues(multiValueQuery) : null,
    multiValueQueryStringParameters: hasQuery ? Object.fromEntries(multiValueQuery) : null,
    pathParameters,
    stageVariables: null,
    requestContext: {
      accountId: LOCAL_IDENTITY.accountId,
      apiId: route.apiLogicalId,
      resourceId: route.resourcePath,
      resourcePath: route.resourcePath,
      httpMethod: method,
      path: `/local${path}`,
      stage: "local",
      protocol: `HTTP/${req.httpVersion}`,
      requestId,
      extendedRequestId: requestId,
      requestTime: now.toUTCString(),
      requestTimeEpoch: now.getTime(),
      domainName: req.headers.host ?? "127.0.0.1",
      // A JWT caller has no IAM identity, as behind API Gateway's Lambda authorizer.
      identity: {
        ...(authorizer === undefined
          ? LOCAL_IDENTITY
          : { accountId: null, caller: null, user: null, userArn: null }),
        accessKey: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: req.socket.remoteAddress ?? "127.0.0.1",
        userAgent: req.headers["user-agent"] ?? null,
      },
      authorizer: authorizer === undefined ? null : { ...authorizer, principalId: authorizer.caller },
    },
    body: body.length === 0 ? null : body.toString("utf8"),
    isBase64Encoded: false,
  };
}
