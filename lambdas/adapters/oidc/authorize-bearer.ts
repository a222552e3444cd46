import { isKnownTenant, type TenantsSettings } from "../../core/tenants/tenants-settings";
import { JwtRejectedError, type JwtVerifier, TokenTenantError } from "./jwt-verifier";

/** What the goals API's handlers get of a JWT caller (`requestContext.authorizer`). */
export interface JwtAuthorizerContext {
  readonly via: "jwt";
  readonly tenantId: string;
  readonly caller: string;
}

/** The decision on one request's `Authorization` header: a caller, or a 401 / 403 in the API's error shape. */
export type BearerOutcome =
  | { readonly kind: "allow"; readonly principalId: string; readonly context: JwtAuthorizerContext }
  | {
      readonly kind: "deny";
      readonly status: 401 | 403;
      readonly code: string;
      readonly message: string;
    };

const BEARER = /^Bearer ([^\s]+)$/i;

/**
 * The one decision the JWT authorizer makes, deployed (the Lambda authorizer) and locally (the
 * local API server, on the same code): no or a malformed `Authorization` header, or a token the
 * verifier refuses (expired, another issuer or audience, a key not in the JWKS, `alg: none`, a
 * changed signature) is a 401; a valid token without a tenant this deployment serves is a 403.
 */
export async function authorizeBearer(
  verify: JwtVerifier,
  tenants: TenantsSettings,
  authorization: string | undefined,
): Promise<BearerOutcome> {
  const token = authorization === undefined ? undefined : BEARER.exec(authorization.trim())?.[1];
  if (token === undefined) {
    return { kind: "deny", status: 401, code: "Unauthorized", message: "send Authorization: Bearer <token>" };
  }
  try {
    const caller = await verify(token);
    if (!isKnownTenant(tenants, caller.tenantId)) {
      return {
        kind: "deny",
        status: 403,
        code: "UnknownTenant",
        message: "the token's tenant is not one this deployment serves",
      };
    }
    return {
      kind: "allow",
      principalId: caller.sub,
      context: { via: "jwt", tenantId: caller.tenantId, caller: caller.caller },
    };
  } catch (error) {
    if (error instanceof JwtRejectedError) {
      return { kind: "deny", status: 401, code: "Unauthorized", message: error.message };
    }
    if (error instanceof TokenTenantError) {
      return { kind: "deny", status: 403, code: "UnknownTenant", message: error.message };
    }
    throw error;
  }
}
