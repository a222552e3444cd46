import { createRemoteJWKSet, customFetch, type JWTPayload, jwtVerify } from "jose";
import { GoalLoopsError } from "../../core/goal/errors";
import { TenantIdSchema } from "../../core/tenants/tenant-limits";
import * as z from "../../core/zod";
import type { JwtAuthSettings } from "./jwt-settings";

/** Why a bearer token was refused: each is a 401, its reason logged and (locally) shown. */
export type JwtRejection =
  | "malformed"
  | "algorithm"
  | "signature"
  | "unknown_key"
  | "expired"
  | "not_yet_valid"
  | "issuer"
  | "audience"
  | "claims"
  | "issuer_unreachable";

/** The token proves nothing: 401 in the API's error shape. */
export class JwtRejectedError extends GoalLoopsError {
  override readonly name = "Unauthorized";
  constructor(
    readonly reason: JwtRejection,
    message: string,
  ) {
    super(message);
  }
}

/** The token is valid but names no tenant this deployment can serve: 403 in the API's error shape. */
export class TokenTenantError extends GoalLoopsError {
  override readonly name = "UnknownTenant";
}

/** Who a valid token says is calling. */
export interface VerifiedCaller {
  readonly tenantId: string;
  readonly sub: string;
  /** For audit trails: `jwt:<sub>`. */
  readonly caller: string;
}

/** A token longer than this is refused unread: headers carry a few kilobytes at most. */
const MAX_TOKEN_LENGTH = 8192;
/** A compact JWS: three base64url parts. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** JWKS keys are kept this long, and an unknown `kid` refetches them at most once per cooldown. */
const JWKS_MAX_AGE_MS = 10 * 60_000;
const JWKS_COOLDOWN_MS = 30_000;
const FETCH_TIMEOUT_MS = 3_000;

const DiscoverySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({ issuer: z.string(), jwks_uri: z.url() }),
);

export interface JwtVerifierOptions {
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /** @default Date.now */
  readonly now?: () => Date;
}

export type JwtVerifier = (token: string) => Promise<VerifiedCaller>;

/**
 * Checks bearer tokens of one issuer (DESIGN §6 `api.auth`): a compact JWS no longer than 8 KB,
 * signed with an asymmetric algorithm the settings allow (never `none`, never HMAC: a JWKS key used
 * as an HMAC secret is the classic confusion), by a key of the issuer's JWKS (fetched once, kept
 * 10 minutes, refetched at most every 30 s when a token names an unknown `kid`, so a key rotation is
 * picked up at once), with the exact issuer, the audience, an `exp` in the future (an `nbf` in the
 * past), a `sub`, and a tenant claim that is a tenant id. Build it once per function: the JWKS cache
 * lives as long as the verifier.
 */
export function createJwtVerifier(settings: JwtAuthSettings, options: JwtVerifierOptions = {}): JwtVerifier {
  const fetcher = options.fetch ?? globalThis.fetch;
  let jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  const keySet = async () => {
    if (jwks !== undefined) return jwks;
    const uri = settings.jwksUri ?? (await discoverJwksUri(settings.issuer, fetcher));
    jwks = createRemoteJWKSet(new URL(uri), {
      cacheMaxAge: JWKS_MAX_AGE_MS,
      cooldownDuration: JWKS_COOLDOWN_MS,
      timeoutDuration: FETCH_TIMEOUT_MS,
      [customFetch]: fetcher,
    });
    return jwks;
  };
  return async (token) => {
    if (token.length > MAX_TOKEN_LENGTH || !COMPACT_JWS.test(token)) {
      throw new JwtRejectedError("malformed", "the bearer token is not a compact JWT");
    }
    const header = protectedHeader(token);
    if (typeof header.alg !== "string" || !settings.algorithms.some((alg) => alg === header.alg)) {
      throw new JwtRejectedError("algorithm", `tokens signed with '${String(header.alg)}' are not accepted`);
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, await keySet(), {
        issuer: settings.issuer,
        ...(settings.audienceClaim === "aud" ? { audience: settings.audience } : {}),
        algorithms: [...settings.algorithms],
        clockTolerance: settings.clockToleranceSeconds,
        requiredClaims: ["exp", "sub"],
        ...(options.now === undefined ? {} : { currentDate: options.now() }),
      }));
    } catch (error) {
      throw rejection(error);
    }
    if (settings.audienceClaim === "client_id") checkClientId(payload, settings.audience);
    const sub = payload.sub;
    if (typeof sub !== "string" || sub === "" || sub.length > 256) {
      throw new JwtRejectedError("claims", "the token's sub is missing or too long");
    }
    const claim = Object.hasOwn(payload, settings.tenantClaim) ? payload[settings.tenantClaim] : undefined;
    const tenant = TenantIdSchema.safeParse(claim);
    if (!tenant.success) {
      throw new TokenTenantError(`the token's ${settings.tenantClaim} claim is missing or not a tenant id`);
    }
    return { tenantId: tenant.data, sub, caller: `jwt:${sub}` };
  };
}

/** The JOSE header, decoded by hand (no library trusts it yet): a malformed one is a 401. */
function protectedHeader(token: string): Record<string, unknown> {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(token.split(".")[0] ?? "", "base64url").toString("utf8"));
    if (typeof decoded === "object" && decoded !== null && !Array.isArray(decoded)) {
      return Object.fromEntries(Object.entries(decoded));
    }
  } catch {
    // Answered below, as any header that is not a JSON object.
  }
  throw new JwtRejectedError("malformed", "the bearer token's header is not a JSON object");
}

function checkClientId(payload: JWTPayload, audience: string | readonly string[]): void {
  const allowed = typeof audience === "string" ? [audience] : audience;
  const clientId = payload.client_id;
  if (typeof clientId !== "string" || !allowed.includes(clientId)) {
    throw new JwtRejectedError("audience", "the token is for another client");
  }
}

/** jose's error codes, as the reasons the API logs. */
const REASONS: Readonly<Record<string, JwtRejection>> = {
  ERR_JWT_EXPIRED: "expired",
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: "signature",
  ERR_JWKS_NO_MATCHING_KEY: "unknown_key",
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: "unknown_key",
  ERR_JOSE_ALG_NOT_ALLOWED: "algorithm",
  ERR_JWS_INVALID: "malformed",
  ERR_JWT_INVALID: "malformed",
  ERR_JOSE_NOT_SUPPORTED: "algorithm",
  ERR_JWKS_TIMEOUT: "issuer_unreachable",
  ERR_JWKS_INVALID: "issuer_unreachable",
};

function rejection(error: unknown): JwtRejectedError {
  if (error instanceof JwtRejectedError) return error;
  if (typeof error !== "object" || error === null)
    return new JwtRejectedError("malformed", MESSAGES.malformed);
  const code = "code" in error ? String(error.code) : "";
  if (code === "ERR_JWT_CLAIM_VALIDATION_FAILED") {
    const claim = "claim" in error ? String(error.claim) : "";
    const reason: JwtRejection =
      claim === "iss"
        ? "issuer"
        : claim === "aud"
          ? "audience"
          : claim === "nbf"
            ? "not_yet_valid"
            : "claims";
    const message =
      reason === "claims" ? `the token's ${claim || "claims"} is not accepted` : MESSAGES[reason];
    return new JwtRejectedError(reason, message);
  }
  const reason = REASONS[code] ?? "issuer_unreachable";
  return new JwtRejectedError(reason, MESSAGES[reason]);
}

/** What a refused caller is told: the reason, never the token or the expected values. */
const MESSAGES: Readonly<Record<JwtRejection, string>> = {
  malformed: "the bearer token is not a valid JWT",
  algorithm: "the token's algorithm is not accepted",
  signature: "the token's signature does not match",
  unknown_key: "the token was signed by a key the issuer does not list",
  expired: "the token has expired",
  not_yet_valid: "the token is not valid yet",
  issuer: "the token is from another issuer",
  audience: "the token is for another audience",
  claims: "the token's claims are not accepted",
  issuer_unreachable: "the issuer's keys could not be read",
};

/** The issuer's JWKS URI from its discovery document, whose `issuer` must be the one configured. */
async function discoverJwksUri(issuer: string, fetcher: typeof fetch): Promise<string> {
  const url = `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
  try {
    const response = await fetcher(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    const discovery = DiscoverySchema.parse(await response.json());
    if (discovery.issuer !== issuer) throw new Error(`discovery names issuer ${discovery.issuer}`);
    return discovery.jwks_uri;
  } catch (error) {
    throw new JwtRejectedError(
      "issuer_unreachable",
      `the issuer's discovery document could not be read (${String(error)})`,
    );
  }
}
