import * as z from "zod";

/**
 * `api.auth.jwt` of the configuration: the OIDC issuer whose tokens the goals API accepts beside
 * IAM, as the JWT authorizer reads it (JWT_AUTH, JSON). Cognito user pools are issuers like any
 * other: their issuer is `https://cognito-idp.<region>.amazonaws.com/<poolId>`.
 */

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

const IssuerUrlSchema = z.url("must be a URL such as https://login.example.com/").refine((url) => {
  const { protocol, hostname } = new URL(url);
  return protocol === "https:" || (protocol === "http:" && LOOPBACK_HOSTS.has(hostname));
}, "must be https (plain http only to localhost or 127.0.0.1, for local issuers)");

/** Asymmetric algorithms only: a symmetric one (HS256) would let anyone holding the JWKS mint tokens. */
export const JWT_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
] as const;

/** A claim name: letters, digits and `:_.-` (Cognito's `custom:tenant`), never a path into the token. */
const ClaimNameSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9:_.-]{0,127}$/, "must be a claim name such as tenant or custom:tenant");

export const JwtAuthSettingsSchema = z
  .strictObject({
    issuer: IssuerUrlSchema.describe(
      "The issuer (`iss`) tokens must carry, exactly; its JWKS is found by OIDC discovery unless jwksUri is set",
    ),
    audience: z
      .union([z.string().min(1).max(512), z.array(z.string().min(1).max(512)).min(1).max(20)])
      .describe(
        "The audience (`aud`, or audienceClaim) a token must be for: the API's client id or identifier",
      ),
    audienceClaim: z
      .enum(["aud", "client_id"])
      .default("aud")
      .describe(
        "Where a token names its audience: aud (ID tokens, most issuers), or client_id (Cognito access tokens)",
      ),
    tenantClaim: ClaimNameSchema.default("tenant").describe("The claim that names the caller's tenant"),
    jwksUri: IssuerUrlSchema.optional().describe(
      "The issuer's JWKS; default: jwks_uri of its discovery document",
    ),
    algorithms: z
      .array(z.enum(JWT_ALGORITHMS))
      .min(1)
      .default(["RS256", "ES256"])
      .describe("The signing algorithms accepted (asymmetric only)"),
    clockToleranceSeconds: z
      .number()
      .int()
      .min(0)
      .max(300)
      .default(30)
      .describe("How far a token's exp and nbf may be off the function's clock"),
    clientId: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .describe(
        "The console's OAuth client id (authorization code with PKCE); default: the audience, when it is one",
      ),
  })
  .describe("Bearer tokens (JWT) of an OIDC issuer, checked by a Lambda authorizer");
export type JwtAuthSettings = z.output<typeof JwtAuthSettingsSchema>;
export type JwtAuthSettingsInput = z.input<typeof JwtAuthSettingsSchema>;

/** Where the constructs put `api.auth.jwt` (JSON) for the authorizer. */
export const JWT_AUTH_ENV = "JWT_AUTH";
