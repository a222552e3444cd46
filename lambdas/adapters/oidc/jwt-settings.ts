import * as z from "../../core/zod";

/**
 * `api.auth.jwt` of the configuration: the OIDC issuer whose tokens the goals API accepts beside
 * IAM, as the JWT authorizer reads it (JWT_AUTH, JSON). Cognito user pools are issuers like any
 * other: their issuer is `https://cognito-idp.<region>.amazonaws.com/<poolId>`.
 */

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

const IssuerUrlSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.url("must be a URL such as https://login.example.com/").check(
    z.refine((url) => {
      const { protocol, hostname } = new URL(url);
      return protocol === "https:" || (protocol === "http:" && LOOPBACK_HOSTS.has(hostname));
    }, "must be https (plain http only to localhost or 127.0.0.1, for local issuers)"),
  ),
);

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
const ClaimNameSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .string()
    .check(
      z.regex(/^[A-Za-z][A-Za-z0-9:_.-]{0,127}$/, "must be a claim name such as tenant or custom:tenant"),
    ),
);

export const JwtAuthSettingsSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .strictObject({
      issuer: IssuerUrlSchema.clone().register(z.globalRegistry, {
        description:
          "The issuer (`iss`) tokens must carry, exactly; its JWKS is found by OIDC discovery unless jwksUri is set",
      }),
      audience: z
        .union([
          z.string().check(z.minLength(1), z.maxLength(512)),
          z.array(z.string().check(z.minLength(1), z.maxLength(512))).check(z.minLength(1), z.maxLength(20)),
        ])
        .register(z.globalRegistry, {
          description:
            "The audience (`aud`, or audienceClaim) a token must be for: the API's client id or identifier",
        }),
      audienceClaim: z._default(z.enum(["aud", "client_id"]), "aud").register(z.globalRegistry, {
        description:
          "Where a token names its audience: aud (ID tokens, most issuers), or client_id (Cognito access tokens)",
      }),
      tenantClaim: z
        ._default(ClaimNameSchema, "tenant")
        .register(z.globalRegistry, { description: "The claim that names the caller's tenant" }),
      jwksUri: z.optional(IssuerUrlSchema).register(z.globalRegistry, {
        description: "The issuer's JWKS; default: jwks_uri of its discovery document",
      }),
      algorithms: z
        ._default(z.array(z.enum(JWT_ALGORITHMS)).check(z.minLength(1)), ["RS256", "ES256"])
        .register(z.globalRegistry, { description: "The signing algorithms accepted (asymmetric only)" }),
      clockToleranceSeconds: z
        ._default(z.number().check(z.int(), z.gte(0), z.lte(300)), 30)
        .register(z.globalRegistry, {
          description: "How far a token's exp and nbf may be off the function's clock",
        }),
      clientId: z.optional(z.string().check(z.minLength(1), z.maxLength(512))).register(z.globalRegistry, {
        description:
          "The console's OAuth client id (authorization code with PKCE); default: the audience, when it is one",
      }),
    })
    .register(z.globalRegistry, {
      description: "Bearer tokens (JWT) of an OIDC issuer, checked by a Lambda authorizer",
    }),
);
export type JwtAuthSettings = z.output<typeof JwtAuthSettingsSchema>;
export type JwtAuthSettingsInput = z.input<typeof JwtAuthSettingsSchema>;

/** Where the constructs put `api.auth.jwt` (JSON) for the authorizer. */
export const JWT_AUTH_ENV = "JWT_AUTH";
