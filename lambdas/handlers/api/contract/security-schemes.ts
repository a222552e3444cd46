import type { Operation } from "./operations";

/**
 * The security schemes of the document. Every goals route takes IAM (SigV4); with `api.auth.mode:
 * "jwt"` a JWT Lambda authorizer guards them and a bearer token of the configured OIDC issuer is
 * taken instead. An operator's route (`auth: "iam"`) stays IAM alone in either mode.
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
  jwt: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description:
      'A bearer token of the OIDC issuer api.auth.jwt names (a deployment with `api.auth.mode: "jwt"`); ' +
      "its tenant claim is the caller's tenant. The local stack's issuer hands them out at `/_local/token`.",
  },
} as const satisfies Record<string, Record<string, unknown>>;

type SchemeName = keyof typeof SECURITY_SCHEMES;

/** The schemes a route accepts by its `auth` (one of them is enough); none for a door that checks its own signature. */
const SCHEMES_BY_AUTH: Readonly<Record<Operation["auth"], readonly SchemeName[]>> = {
  api: ["sigv4", "jwt"],
  iam: ["sigv4"],
  "slack-signature": [],
  "email-link": [],
};

/** An operation's `security`: each scheme it accepts as an alternative. */
export function securityOf(operation: Operation): Record<string, string[]>[] {
  return SCHEMES_BY_AUTH[operation.auth].map((scheme) => ({ [scheme]: [] }));
}
