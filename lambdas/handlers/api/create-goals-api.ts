import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import { clip } from "../../core/goal/text";
import { DEFAULT_TENANTS_SETTINGS } from "../../core/tenants/tenants-settings";
import { approvalsRoutes } from "./approvals";
import { callerIdentity } from "./caller-tenant";
import { openApiDocument } from "./contract/openapi-document";
import { OPERATIONS } from "./contract/operations";
import { getGoalsRoutes } from "./get-goals";
import { goalControlRoutes } from "./goal-control";
import { goalDetailsRoutes } from "./goal-details";
import { goalHistoryRoutes } from "./goal-history";
import type { GoalsApiDeps } from "./goals-api-deps";
import { errorJson, internalError, knownErrorResponse } from "./http-responses";
import { checkPathParams } from "./path-params";
import { postGoalRoute } from "./post-goal";
import { type ApiRequest, matchRoute, type Route, type RouteMatch, route } from "./routes";
import { tenantRoutes } from "./tenants";

export type GoalsApi = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

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
 * `GET /goals/{goalId}/stream` is served by the event stream's own function (response streaming);
 * it is listed here so another method on that path is a 405 with `Allow: GET` from this function,
 * which API Gateway's ANY method sends it to. A GET never reaches this function deployed or locally.
 */
const streamedElsewhere: Route = route(OPERATIONS.streamEvents, async () =>
  errorJson(400, {
    code: "StreamNotServedHere",
    message: "GET /goals/{goalId}/stream is answered by the event stream function, which streams",
  }),
);

/**
 * `GET /openapi.json`: the document generated from the same operations table the routes above
 * come from, built on the first request (some 100 ms) and kept for the container's life.
 */
let document: string | undefined;
const openApiRoute: Route = route(OPERATIONS.getOpenApiDocument, async () => {
  document ??= JSON.stringify(openApiDocument());
  return { statusCode: 200, headers: { "content-type": "application/json; charset=utf-8" }, body: document };
});

/** Every route of the goals API, in matching order (a 405's `Allow` lists methods in this order). */
export function goalsApiRoutes(deps: GoalsApiDeps): Route[] {
  return [
    postGoalRoute(deps),
    ...getGoalsRoutes(deps),
    ...goalControlRoutes(deps),
    ...approvalsRoutes(deps),
    ...goalDetailsRoutes(deps),
    ...goalHistoryRoutes(deps),
    ...tenantRoutes(deps),
    streamedElsewhere,
    openApiRoute,
  ];
}

/**
 * The goals API as one function of an API Gateway REST (v1) proxy event, with its dependencies
 * injected. Known errors become their documented answers; anything else is logged and answered
 * as a 500 carrying only the request id.
 */
export function createGoalsApi(deps: GoalsApiDeps): GoalsApi {
  const routes = goalsApiRoutes(deps);

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
