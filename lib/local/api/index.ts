/**
 * api/: the goals API on http://127.0.0.1:8787: the HTTP server that turns a request into the API
 * Gateway proxy event the deployed function gets (api-server.ts), matching routes read from the
 * template (api-routes.ts), the web console it serves (console-assets.ts, built from console/), and
 * the local OIDC issuer whose tokens it checks with the deployed authorizer's code (local-issuer.ts),
 * and the check of answers against the OpenAPI document (openapi-response-check.ts).
 * Not here: the API's handlers (lambdas/handlers/api), which run unchanged in a sandbox.
 */
export * from "./api-routes";
export * from "./api-server";
export * from "./console-assets";
export * from "./local-issuer";
export * from "./openapi-response-check";
