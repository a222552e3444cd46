import { openApiDocument } from "./contract/openapi-document";
import { OPERATIONS } from "./contract/operations";
import { type Route, route } from "./routes";
import { type ProxyApi, type ServeRoutesDeps, serveRoutes } from "./serve-routes";

/**
 * `GET /openapi.json`: the document generated from the same operations table the goals API's
 * routes come from, built on the first request (some 100 ms) and kept for the container's life.
 * Served by a function of its own (handlers/api/openapi-json.ts): building it takes zod's JSON
 * Schema converter, some 20 KB that the goals API, cold-started on every goal submission and
 * read, would otherwise load for a route few callers ask for.
 */
let document: string | undefined;
export const openApiRoute: Route = route(OPERATIONS.getOpenApiDocument, async () => {
  document ??= JSON.stringify(openApiDocument());
  return { statusCode: 200, headers: { "content-type": "application/json; charset=utf-8" }, body: document };
});

/** The OpenAPI document's function: the one route, with the goals API's caller check and errors. */
export function createOpenApiApi(deps: ServeRoutesDeps): ProxyApi {
  return serveRoutes([openApiRoute], deps);
}
