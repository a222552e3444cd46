import { randomUUID } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import * as z from "zod";
import { matchRoute } from "./api-routes";
import type { ApiRouteSpec, JsonObject, JsonValue } from "./cloud-assembly-model";
import { listen, type RunningServer } from "./listen";

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
  /** Function errors and malformed answers (502s) are reported here. @default console.error */
  readonly onError?: (message: string, error?: unknown) => void;
  /**
   * Local-only GET routes answered by the runtime itself (e.g. `/_local/outbox`), never by a
   * function: they do not exist in API Gateway.
   */
  readonly localRoutes?: Readonly<Record<string, () => Promise<JsonValue>>>;
  /** Local-only GET pages (the web console at `/console`): the file for a path, or undefined. */
  readonly pages?: (pathname: string) => Promise<{ contentType: string; body: string } | undefined>;
}

/** The caller every local request is made as: the API maps it to tenant "local". */
export const LOCAL_IDENTITY = {
  accountId: "local",
  caller: "local",
  user: "local",
  userArn: "arn:aws:iam::local:user/local",
} as const;

const ProxyResultSchema = z.object({
  statusCode: z.number().int().min(100).max(599),
  headers: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).nullish(),
  multiValueHeaders: z.record(z.string(), z.array(z.union([z.string(), z.number(), z.boolean()]))).nullish(),
  body: z.string().nullish(),
  isBase64Encoded: z.boolean().nullish(),
});

/**
 * The REST API on 127.0.0.1, routed as API Gateway routes the template's methods: each request
 * becomes a REST (v1) Lambda proxy event for the route's function, and the function's proxy
 * result becomes the response.
 */
export async function startApiServer(options: ApiServerOptions): Promise<RunningServer> {
  const onError =
    options.onError ?? ((message: string, error?: unknown) => console.error(message, error ?? ""));
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://local");
    const method = (req.method ?? "GET").toUpperCase();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(Buffer.from(chunk));
    const local = options.localRoutes?.[url.pathname];
    if (local !== undefined && method === "GET") {
      try {
        return sendJson(res, 200, await local());
      } catch (error) {
        onError(`${method} ${url.pathname}: the local route failed`, error);
        return sendJson(res, 500, { message: "local route failed" });
      }
    }
    const page =
      method === "GET"
        ? await options.pages?.(url.pathname).catch((error: unknown) => {
            onError(`${method} ${url.pathname}: the page could not be built`, error);
            return { contentType: "text/plain", body: "the page could not be built; see the runtime's log" };
          })
        : undefined;
    if (page !== undefined) {
      res.writeHead(200, { "content-type": page.contentType, "cache-control": "no-store" });
      return res.end(page.body);
    }
    const match = matchRoute(options.routes, method, url.pathname);
    if (match === undefined) {
      const known = [...new Set(options.routes.map((r) => `${r.method} ${r.resourcePath}`))].join(", ");
      return sendJson(res, 404, {
        message: `No route for ${method} ${url.pathname} (the local API serves ${known || "no route"})`,
      });
    }
    const event = proxyEvent(req, url, method, match.route, match.pathParameters, Buffer.concat(chunks));
    if (match.route.streaming) return streamResponse(options, onError, match.route, event, req, res);
    let result: JsonValue;
    try {
      result = await options.invokeFunction(match.route.functionArn, event);
    } catch (error) {
      onError(`${method} ${url.pathname}: the function failed`, error);
      return sendJson(res, 502, { message: "Internal server error" });
    }
    const parsed = ProxyResultSchema.safeParse(result);
    if (!parsed.success) {
      onError(`${method} ${url.pathname}: malformed Lambda proxy response: ${parsed.error.message}`);
      return sendJson(res, 502, { message: "Internal server error" });
    }
    const { statusCode, headers, multiValueHeaders, body, isBase64Encoded } = parsed.data;
    for (const [name, value] of Object.entries(headers ?? {})) res.setHeader(name, String(value));
    for (const [name, values] of Object.entries(multiValueHeaders ?? {}))
      res.setHeader(name, values.map(String));
    res.statusCode = statusCode;
    res.end(isBase64Encoded ? Buffer.from(body ?? "", "base64") : (body ?? ""));
  });
  return listen(server, options.port ?? 8787);
}

/** The metadata before the 8 NUL bytes of a streamed HTTP integration response. */
const PreludeSchema = z.object({
  statusCode: z.number().int().min(100).max(599).optional(),
  headers: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).nullish(),
  multiValueHeaders: z.record(z.string(), z.array(z.union([z.string(), z.number(), z.boolean()]))).nullish(),
  cookies: z.array(z.string()).nullish(),
});
const DELIMITER = Buffer.alloc(8);

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
  const onChunk = (chunk: Uint8Array) => {
    if (head === undefined) {
      if (!res.writableEnded) res.write(chunk);
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

/** An API Gateway REST (v1) proxy event, as AWS builds it for a Lambda proxy integration. */
function proxyEvent(
  req: IncomingMessage,
  url: URL,
  method: string,
  route: ApiRouteSpec,
  pathParameters: Record<string, string> | null,
  body: Buffer,
): JsonObject {
  const multiValueHeaders: Record<string, string[]> = {};
  // rawHeaders keeps the names as the client sent them, as API Gateway does.
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] ?? "";
    multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), req.rawHeaders[i + 1] ?? ""];
  }
  const headers = Object.fromEntries(Object.entries(multiValueHeaders).map(([k, v]) => [k, v.at(-1) ?? ""]));
  const multiValueQuery: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams)
    multiValueQuery[name] = [...(multiValueQuery[name] ?? []), value];
  const hasQuery = Object.keys(multiValueQuery).length > 0;
  const now = new Date();
  const requestId = randomUUID();
  return {
    resource: route.resourcePath,
    path: url.pathname,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery
      ? Object.fromEntries(Object.entries(multiValueQuery).map(([k, v]) => [k, v.at(-1) ?? ""]))
      : null,
    multiValueQueryStringParameters: hasQuery ? multiValueQuery : null,
    pathParameters,
    stageVariables: null,
    requestContext: {
      accountId: LOCAL_IDENTITY.accountId,
      apiId: route.apiLogicalId,
      resourceId: route.resourcePath,
      resourcePath: route.resourcePath,
      httpMethod: method,
      path: `/local${url.pathname}`,
      stage: "local",
      protocol: `HTTP/${req.httpVersion}`,
      requestId,
      extendedRequestId: requestId,
      requestTime: now.toUTCString(),
      requestTimeEpoch: now.getTime(),
      domainName: req.headers.host ?? "127.0.0.1",
      identity: {
        ...LOCAL_IDENTITY,
        accessKey: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: req.socket.remoteAddress ?? "127.0.0.1",
        userAgent: req.headers["user-agent"] ?? null,
      },
      authorizer: null,
    },
    body: body.length === 0 ? null : body.toString("utf8"),
    isBase64Encoded: false,
  };
}
