import { Logger } from "@aws-lambda-powertools/logger";
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from "aws-lambda";
import { authorizeBearer } from "../../adapters/oidc/authorize-bearer";
import { JWT_AUTH_ENV, JwtAuthSettingsSchema } from "../../adapters/oidc/jwt-settings";
import { createJwtVerifier } from "../../adapters/oidc/jwt-verifier";
import { parseJsonEnv } from "../handler-environment";
import { tenantsSettingsFromEnv } from "../tenants-from-env";
import { ApiConfigurationError } from "./api-errors";

/**
 * The JWT authorizer of the goals API (a TOKEN Lambda authorizer, `api.auth.jwt`): API Gateway
 * hands it the `Authorization` header, it decides with `authorizeBearer`, and API Gateway caches the
 * answer per token. A 401 is API Gateway's UNAUTHORIZED response (the authorizer throws
 * `Unauthorized`); a 403 is a Deny policy whose context carries the code and message the
 * ACCESS_DENIED gateway response puts in the API's error shape. An allowed caller's
 * `{via, tenantId, caller}` reaches every handler as `requestContext.authorizer`.
 */
const logger = new Logger();
const settings = parseJsonEnv(
  JWT_AUTH_ENV,
  process.env[JWT_AUTH_ENV],
  JwtAuthSettingsSchema,
  "the JSON of api.auth.jwt",
);
if (settings === undefined)
  throw new ApiConfigurationError(`${JWT_AUTH_ENV} is not set: the authorizer has no issuer`);
const tenants = tenantsSettingsFromEnv();
// Module scope: the JWKS the verifier fetches is kept across the invocations of a warm container.
const verify = createJwtVerifier(settings);

/**
 * The whole API (`arn:…:execute-api:region:account:api/stage/*`), not the one method asked: API
 * Gateway caches the policy per token and applies it to the token's next requests on any route.
 */
export function apiWideResource(methodArn: string): string {
  const [arn = "", stage = "*"] = methodArn.split("/");
  return `${arn}/${stage}/*`;
}

function policy(effect: "Allow" | "Deny", resource: string): APIGatewayAuthorizerResult["policyDocument"] {
  return {
    Version: "2012-10-17",
    Statement: [{ Action: "execute-api:Invoke", Effect: effect, Resource: resource }],
  };
}

export async function handler(event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const outcome = await authorizeBearer(verify, tenants, event.authorizationToken);
  const resource = apiWideResource(event.methodArn);
  if (outcome.kind === "allow") {
    logger.info("token accepted", { tenantId: outcome.context.tenantId, caller: outcome.context.caller });
    return {
      principalId: outcome.principalId,
      policyDocument: policy("Allow", resource),
      context: { ...outcome.context },
    };
  }
  logger.info("token refused", { status: outcome.status, code: outcome.code, reason: outcome.message });
  // API Gateway's own 401: the only way an authorizer answers one.
  if (outcome.status === 401) throw new Error("Unauthorized");
  return {
    principalId: "refused",
    policyDocument: policy("Deny", resource),
    context: { code: gatewayTemplateText(outcome.code), message: gatewayTemplateText(outcome.message) },
  };
}

/**
 * Text the ACCESS_DENIED gateway response can put inside a JSON string as it is: that template
 * substitutes `$context.authorizer.<key>` without escaping (it is not VTL), so a quote, backslash or
 * control character would break the body. The messages are the authorizer's own; this keeps them so.
 */
export function gatewayTemplateText(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  return text.replace(/["\\\u0000-\u001f]/g, "");
}
