import type { APIGatewayProxyEvent } from "aws-lambda";
import { MissingCallerIdentityError } from "./api-errors";

/** Account ids as tenant ids: 12 digits in AWS, `local` from the local runtime. Never a key separator. */
const TENANT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The calling principal for audit trails: its ARN when API Gateway gives one, else the account. */
export function callerName(event: Pick<APIGatewayProxyEvent, "requestContext">): string {
  const identity = event.requestContext?.identity;
  return identity?.userArn ?? identity?.caller ?? callerTenant(event);
}

/**
 * The caller's tenant. With IAM (SigV4) auth API Gateway puts the signing principal in
 * `requestContext.identity`; the tenant is its AWS account id, so every principal of one account
 * sees the same goals and no other account sees them. The local runtime sends the fixed account
 * id `local`, which makes the tenant `local`.
 */
export function callerTenant(event: Pick<APIGatewayProxyEvent, "requestContext">): string {
  // Typed as always present, but a hand-built or misrouted event may lack either level.
  const accountId = event.requestContext?.identity?.accountId;
  if (typeof accountId !== "string" || accountId === "") {
    throw new MissingCallerIdentityError("The request has no caller identity: IAM auth is required");
  }
  if (!TENANT_ID.test(accountId)) {
    throw new MissingCallerIdentityError("The caller's account id is not one this API accepts");
  }
  return accountId;
}
