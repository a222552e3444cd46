import { approvalsRoutes } from "./approvals";
import { OPERATIONS } from "./contract/operations";
import { getGoalsRoutes } from "./get-goals";
import { goalControlRoutes } from "./goal-control";
import { goalDetailsRoutes } from "./goal-details";
import { goalHistoryRoutes } from "./goal-history";
import type { GoalsApiDeps } from "./goals-api-deps";
import { errorJson } from "./http-responses";
import { postGoalRoute } from "./post-goal";
import { type Route, route } from "./routes";
import { type ProxyApi, serveRoutes } from "./serve-routes";
import { tenantRoutes } from "./tenants";

export type GoalsApi = ProxyApi;

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
 * `GET /openapi.json` is served by the OpenAPI document's own function (handlers/api/openapi-json.ts),
 * which keeps zod's JSON Schema converter out of this bundle; listed here, as the stream is, so
 * another method on that path is a 405 with `Allow: GET` from this function. A GET never reaches
 * it, deployed or locally.
 */
const openApiServedElsewhere: Route = route(OPERATIONS.getOpenApiDocument, async () =>
  errorJson(400, {
    code: "OpenApiNotServedHere",
    message: "GET /openapi.json is answered by the OpenAPI document's function",
  }),
);

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
    openApiServedElsewhere,
  ];
}

/**
 * The goals API as one function of an API Gateway REST (v1) proxy event, with its dependencies
 * injected. Known errors become their documented answers; anything else is logged and answered
 * as a 500 carrying only the request id.
 */
export function createGoalsApi(deps: GoalsApiDeps): GoalsApi {
  return serveRoutes(goalsApiRoutes(deps), deps);
}
