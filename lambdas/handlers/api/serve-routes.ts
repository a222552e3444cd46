import type { Logger } from "@aws-lambda-powertools/logger";
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import { clip } from "../../core/goal/text";
import { DEFAULT_TENANTS_SETTINGS, type TenantsSettings } from "../../core/tenants/tenants-settings";
import { callerIdentity } from "./caller-tenant";
import { errorJson, internalError, knownErrorResponse } from "./http-responses";
import { checkPathParams } from "./path-params";
import { type ApiRequest, matchRoute, type Route, type RouteMatch } from "./routes";

/** An API Gateway REST (v1) proxy function: one event in, one buffered answer out. */
export type ProxyApi = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

/** What serving routes needs beyond the routes: where unexpected errors go, and who the tenants are. */
export interface ServeRoutesDeps {
  readonly logger: Pick<Logger, "error">;
  /** @default DEFAULT_TENANTS_SETTINGS */
  readonly tenants?: { readonly settings: TenantsSettings };
}

/**
 * Header and query maps as the routes want them: names lower-cased, absent values dropped. Built
 * with own properties only, so a name like `__proto__` or `constructor` is just a name.
 */
function present(
  values: Record<string, string | undefined> | null,
  lowerCaseNames = false,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values ?? {})
      .filter((entry): entry is [string, string] => typeof entry[1] === "string")
      .map(([name, value]) => [lowerCaseNames ? name.toLowerCase() : name, value]),
  );
}

/** What the path in a message looks like: enough to recognise it, never a whole hostile path. */
const shownPath = (path: string) => clip(path, 200);

/** The answer for a request no route takes: 400 bad encoding, 405 wrong method (with Allow), 404. */
function unmatched(
  match: Exclude<RouteMatch, { kind: "found" }>,
  event: APIGatewayProxyEvent,
): APIGatewayProxyResult {
  switch (match.kind) {
    case "malformed_segment": {
      const message = `path segment '${clip(match.segment, 100)}' is not valid percent-encoding`;
      return errorJson(400, {
        code: "ValidationError",
        message: `Invalid path: ${message}`,
        issues: [{ path: "path", message }],
      });
    }
    case "method_not_allowed": {
      const allow = match.allow.join(", ");
      const message = `${clip(event.httpMethod, 20)} is not allowed on ${shownPath(event.path)}; allowed: ${allow}`;
      return errorJson(405, { code: "MethodNotAllowed", message }, { allow });
    }
    case "not_found":
      return errorJson(404, {
        code: "RouteNotFound",
        message: `No route for ${clip(event.httpMethod, 20)} ${shownPath(event.path)}`,
      });
  }
}

function bodyText(event: APIGatewayProxyEvent): string | undefined {
  if (event.body === null || event.body === undefined) return undefined;
  return event.isBase64Encoded ? Buffer.from(event.body, "base64").toString("utf8") : event.body;
}

/**
 * A proxy function of `routes`, as every goals API function answers: the caller's tenant checked
 * before any route runs (DESIGN §6), known errors as their documented answers, anything else
 * logged and answered as a 500 carrying only the request id. The goals API and the OpenAPI
 * document's function both serve through it, so a route answers the same whichever one holds it.
 */
export function serveRoutes(routes: readonly Route[], deps: ServeRoutesDeps): ProxyApi {
  return async (event) => {
    const requestId = event.requestContext?.requestId ?? "unknown";
    try {
      const match = matchRoute(routes, event.httpMethod, event.path);
      if (match.kind !== "found") return unmatched(match, event);
      const request: ApiRequest = {
        ...callerIdentity(event, deps.tenants?.settings ?? DEFAULT_TENANTS_SETTINGS),
        params: checkPathParams(match.params),
        query: present(event.queryStringParameters),
        headers: present(event.headers, true),
        body: bodyText(event),
      };
      return await match.route.handle(request);
    } catch (error) {
      const known = knownErrorResponse(error);
      if (known !== undefined) return known;
      deps.logger.error("unexpected error", { requestId, method: event.httpMethod, path: event.path, error });
      return internalError(requestId);
    }
  };
}
