import { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import middy from "@middy/core";
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import { tenantsSettingsFromEnv } from "../tenants-from-env";
import { createOpenApiApi } from "./openapi-route";

/**
 * `GET /openapi.json` (API Gateway REST proxy, v1 events; the local runtime serves the same bundle):
 * a function of its own, so zod's JSON Schema converter stays out of the goals API's bundle. It
 * reads nothing but TENANTS: the caller is checked as on every goals route.
 */
const logger = new Logger();
const api = createOpenApiApi({ logger, tenants: { settings: tenantsSettingsFromEnv() } });

export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
  .use(injectLambdaContext(logger))
  .handler((event) => api(event));
