import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import { approvalsRoutes } from "./approvals";
import { callerName, callerTenant } from "./caller-tenant";
import { getGoalsRoutes } from "./get-goals";
import { goalControlRoutes } from "./goal-control";
import { goalDetailsRoutes } from "./goal-details";
import type { GoalsApiDeps } from "./goals-api-deps";
import { errorJson, internalError, knownErrorResponse } from "./http-responses";
import { postGoalRoute } from "./post-goal";
import { type ApiRequest, matchRoute } from "./routes";

export type GoalsApi = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

/** Header and query maps as the routes want them: names lower-cased, absent values dropped. */
function present(values: Record<string, string | undefined> | null, lowerCaseNames = false) {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(values ?? {})) {
    if (value !== undefined) result[lowerCaseNames ? name.toLowerCase() : name] = value;
  }
  return result;
}

function bodyText(event: APIGatewayProxyEvent): string | undefined {
  if (event.body === null || event.body === undefined) return undefined;
  return event.isBase64Encoded ? Buffer.from(event.body, "base64").toString("utf8") : event.body;
}

/**
 * The goals API as one function of an API Gateway REST (v1) proxy event, with its dependencies
 * injected. Known errors become their documented answers; anything else is logged and answered
 * as a 500 carrying only the request id.
 */
export function createGoalsApi(deps: GoalsApiDeps): GoalsApi {
  const routes = [
    postGoalRoute(deps),
    ...getGoalsRoutes(deps),
    ...goalControlRoutes(deps),
    ...approvalsRoutes(deps),
    ...goalDetailsRoutes(deps),
  ];

  return async (event) => {
    const requestId = event.requestContext?.requestId ?? "unknown";
    try {
      const match = matchRoute(routes, event.httpMethod, event.path);
      if (match.kind === "not_found") {
        return errorJson(404, { code: "RouteNotFound", message: `No route for ${event.path}` });
      }
      if (match.kind === "method_not_allowed") {
        const allow = match.allow.join(", ");
        const message = `${event.httpMethod} is not allowed on ${event.path}; allowed: ${allow}`;
        return errorJson(405, { code: "MethodNotAllowed", message }, { allow });
      }
      const request: ApiRequest = {
        tenantId: callerTenant(event),
        caller: callerName(event),
        params: match.params,
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
