import type { APIGatewayProxyEvent } from "aws-lambda";
import {
  type CallerIdentity,
  iamTenant,
  isKnownTenant,
  type TenantsSettings,
  UnknownTenantError,
} from "../../core/tenants/tenants-settings";
import * as z from "../../core/zod";
import { MissingCallerIdentityError } from "./api-errors";

/**
 * What the JWT authorizer (handlers/api/jwt-authorizer.ts) hands API Gateway as its context, which
 * API Gateway puts in `requestContext.authorizer` of every request it let through. Only API Gateway
 * (or the local API server, after the same check) writes it: a client cannot set it.
 */
export const AuthorizerContextSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    via: z.literal("jwt"),
    tenantId: z.string().check(z.minLength(1), z.maxLength(64)),
    caller: z.string().check(z.minLength(1), z.maxLength(300)),
  }),
);

/**
 * Who calls and for which tenant (DESIGN §6): a JWT caller as its authorizer found it (tenant from
 * the configured claim, caller from `sub`); an IAM (SigV4) caller from the signing principal API
 * Gateway puts in `requestContext.identity`, its tenant by `tenants.iam` (principal patterns), else
 * its account. The local runtime signs unsigned loopback calls as the account `local`. A caller
 * without a tenant this deployment serves is an UnknownTenantError (403).
 */
export function callerIdentity(
  event: Pick<APIGatewayProxyEvent, "requestContext">,
  settings: TenantsSettings,
): CallerIdentity {
  // Typed as always present, but a hand-built or misrouted event may lack any level.
  const authorizer: unknown = event.requestContext?.authorizer;
  if (authorizer !== null && authorizer !== undefined) {
    const context = AuthorizerContextSchema.safeParse(authorizer);
    if (context.success) {
      const { tenantId, caller } = context.data;
      if (!isKnownTenant(settings, tenantId)) {
        throw new UnknownTenantError(`The token's tenant is not one this deployment serves`);
      }
      return { tenantId, caller, via: "jwt" };
    }
  }
  const identity = event.requestContext?.identity;
  const accountId = identity?.accountId;
  if (typeof accountId !== "string" || accountId === "") {
    throw new MissingCallerIdentityError(
      "The request has no caller identity: IAM auth or a bearer token is required",
    );
  }
  const userArn = typeof identity?.userArn === "string" ? identity.userArn : undefined;
  const tenantId = iamTenant(settings, { userArn, accountId });
  if (tenantId === undefined || !isKnownTenant(settings, tenantId)) {
    throw new UnknownTenantError("The caller's IAM principal belongs to no tenant this deployment serves");
  }
  return { tenantId, caller: userArn ?? identity?.caller ?? accountId, via: "iam" };
}
