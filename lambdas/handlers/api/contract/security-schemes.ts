import type { Operation } from "./operations";

/**
 * The security schemes of the document. Every goals route takes IAM (SigV4) today; a scheme added
 * here (a JWT bearer from an OIDC issuer, when tenants land) is named in `API_SCHEMES` and every
 * goals operation then lists it as an alternative: callers need one of them.
 */
export const SECURITY_SCHEMES = {
  sigv4: {
    type: "apiKey",
    name: "Authorization",
    in: "header",
    description:
      "AWS Signature Version 4 for the service `execute-api`, signed with the caller's IAM credentials. " +
      "The local stack (loopback) takes unsigned requests as its one local tenant.",
    // How API Gateway's own export names IAM auth, so the document imports back as it is deployed.
    "x-amazon-apigateway-authtype": "awsSigv4",
  },
} as const satisfies Record<string, Record<string, unknown>>;

/** The schemes any goals route accepts (one of them is enough). */
const API_SCHEMES: readonly (keyof typeof SECURITY_SCHEMES)[] = ["sigv4"];

/** An operation's `security`: the API's schemes, or none for a door that checks its own signature. */
export function securityOf(operation: Operation): Record<string, string[]>[] {
  return operation.auth === "api" ? API_SCHEMES.map((scheme) => ({ [scheme]: [] })) : [];
}
