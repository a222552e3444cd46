/**
 * The ACCESS_DENIED gateway response's body when the JWT authorizer denies: `{error:{code, message}}`
 * from the Deny's context (`$context.authorizer.<key>`, the stringified context value), the API's
 * error shape. Gateway response templates are not VTL, only substitution (API Gateway developer
 * guide, "Set up gateway responses to customize error responses"; OpenAPI extension
 * `x-amazon-apigateway-gateway-responses.gatewayResponse`: "not processed by the VTL engine"), so
 * the values are put inside quotes as they are: the authorizer puts only JSON-safe text there.
 */
export const AUTHORIZER_DENIAL_TEMPLATE =
  '{"error":{"code":"$context.authorizer.code","message":"$context.authorizer.message"},"requestId":"$context.requestId"}';
