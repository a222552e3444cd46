import { Logger } from "@aws-lambda-powertools/logger";
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { TENANTS_ENV, TenantsSettingsSchema } from "../../../lambdas/core/tenants/tenants-settings";
import { openApiDocument } from "../../../lambdas/handlers/api/contract/openapi-document";
import { goalsApiRoutes } from "../../../lambdas/handlers/api/create-goals-api";
import type { GoalsApiDeps } from "../../../lambdas/handlers/api/goals-api-deps";
import { createOpenApiApi } from "../../../lambdas/handlers/api/openapi-route";
import { serveRoutes } from "../../../lambdas/handlers/api/serve-routes";
import { apiEvent, bodyOf } from "./api-harness";

const logger = new Logger({ logLevel: "SILENT" });
const ACCOUNT = "123456789012";

/** The deployed function's module, wired from its environment alone (TENANTS), as Lambda loads it. */
type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

const context = { awsRequestId: "lambda-request", functionName: "openapi-document" } as Context;

describe("GET /openapi.json, the OpenAPI document's own function", () => {
  let handler: ProxyHandler;

  beforeAll(async () => {
    // This file runs in a fresh module graph (vitest.config.mts FRESH_MODULE_TESTS): TENANTS is read at import.
    vi.stubEnv(TENANTS_ENV, JSON.stringify({ known: [ACCOUNT] }));
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "SILENT");
    ({ handler } = (await import("../../../lambdas/handlers/api/openapi-json")) as { handler: ProxyHandler });
  });

  afterAll(() => {
    vi.unstubAllEnvs();
  });

  it("answers 200 with the document the goals API served: the same headers, the same bytes", async () => {
    // Act
    const result = await handler(
      apiEvent({ method: "GET", path: "/openapi.json", accountId: ACCOUNT }),
      context,
    );

    // Assess
    expect(result.statusCode).toBe(200);
    expect(result.headers).toEqual({ "content-type": "application/json; charset=utf-8" });
    expect(result.body).toBe(JSON.stringify(openApiDocument()));
  });

  it("checks the caller as every goals route does: no identity 401, a tenant it does not serve 403", async () => {
    // Act
    const anonymous = await handler(
      apiEvent({ method: "GET", path: "/openapi.json", accountId: null }),
      context,
    );
    const stranger = await handler(
      apiEvent({ method: "GET", path: "/openapi.json", accountId: "210987654321" }),
      context,
    );

    // Assess
    expect(anonymous.statusCode).toBe(401);
    expect(bodyOf(anonymous).error).toMatchObject({ code: "MissingCallerIdentity" });
    expect(stranger.statusCode).toBe(403);
    expect(bodyOf(stranger).error).toMatchObject({ code: "UnknownTenant" });
  });
});

describe("the goals API on /openapi.json", () => {
  const tenants = { settings: TenantsSettingsSchema.parse({}) };
  // The routes only close over their dependencies; none is called here.
  const goalsApi = serveRoutes(goalsApiRoutes({} as GoalsApiDeps), { logger, tenants });
  const documentApi = createOpenApiApi({ logger, tenants });

  it("answers another method 405 with Allow: GET, as API Gateway's ANY method sends it there", async () => {
    // Act
    const result = await goalsApi(apiEvent({ method: "DELETE", path: "/openapi.json", accountId: ACCOUNT }));

    // Assess
    expect(result.statusCode).toBe(405);
    expect(result.headers).toMatchObject({ allow: "GET" });
    expect(bodyOf(result).error).toMatchObject({ code: "MethodNotAllowed" });
  });

  it("answers another method the same from the document's function, should one reach it", async () => {
    // Act
    const event = apiEvent({ method: "POST", path: "/openapi.json", accountId: ACCOUNT });
    const [fromDocument, fromGoalsApi] = await Promise.all([documentApi(event), goalsApi(event)]);

    // Assess
    expect(fromDocument).toEqual(fromGoalsApi);
  });
});
