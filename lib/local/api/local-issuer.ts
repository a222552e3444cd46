import { createHash, randomBytes, randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import * as z from "zod";
import type { JwtAuthSettings } from "../../../lambdas/adapters/oidc/jwt-settings";
import { escapeHtml } from "../../../lambdas/core/human/email/html";
import { TenantIdSchema } from "../../../lambdas/core/tenants/tenant-limits";

/**
 * The local stack's own OIDC issuer (`npm start`), so people and tests sign in without an identity
 * provider: discovery, a JWKS, an authorization-code flow with PKCE for the console (a sign-in page
 * that asks for a tenant and a user, nothing else), and `GET /_local/token?tenant=…&sub=…` that
 * mints a token at once. Tokens are real ES256 JWTs, checked by the same code as deployed
 * (lambdas/adapters/oidc). Everything is under `/_local/oidc` on the API's own port; the key pair
 * lives as long as the process, so a restart signs everyone out.
 */

/** Where the issuer lives under the API's URL: the issuer is `<api>/_local/oidc`. */
export const LOCAL_ISSUER_PATH = "/_local/oidc";
/** The audience of every local token, and what the local API checks. */
export const LOCAL_AUDIENCE = "goal-loops-local";
/** The console's client id at the local issuer. */
export const LOCAL_CLIENT_ID = "goal-loops-console";
/** The claim that carries the tenant in local tokens. */
export const LOCAL_TENANT_CLAIM = "tenant";
const KEY_ID = "local-1";
const DEFAULT_TOKEN_SECONDS = 3600;
const MAX_TOKEN_SECONDS = 24 * 3600;
/** An authorization code is good for one exchange within this long. */
const CODE_MS = 60_000;

/** A request the issuer may answer, as the local API server hands it over. */
export interface LocalRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly body: string;
}

/** What the issuer answers. */
export interface LocalResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const SubSchema = z.string().regex(/^[A-Za-z0-9@._:-]{1,128}$/, "must be 1-128 letters, digits or @._:-");

const TokenQuerySchema = z.object({
  tenant: TenantIdSchema,
  sub: SubSchema.default("local-user"),
  /** Another audience than the local API's: a token the API must refuse (tests). */
  aud: z.string().min(1).max(200).optional(),
  /** Seconds until it expires; negative mints an expired token (tests). */
  expiresIn: z.coerce.number().int().min(-MAX_TOKEN_SECONDS).max(MAX_TOKEN_SECONDS).optional(),
});

const AuthorizeQuerySchema = z.object({
  response_type: z.literal("code"),
  client_id: z.literal(LOCAL_CLIENT_ID),
  redirect_uri: z.url(),
  state: z.string().max(512).default(""),
  code_challenge: z.string().regex(/^[A-Za-z0-9_-]{43,128}$/, "must be a PKCE S256 challenge"),
  code_challenge_method: z.literal("S256"),
});

const TokenFormSchema = z.object({
  grant_type: z.literal("authorization_code"),
  code: z.string().min(1).max(200),
  code_verifier: z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/, "must be a PKCE verifier"),
  redirect_uri: z.string(),
  client_id: z.literal(LOCAL_CLIENT_ID),
});

interface PendingCode {
  readonly tenant: string;
  readonly sub: string;
  readonly redirectUri: string;
  readonly challenge: string;
  readonly expiresAt: number;
}

export interface LocalIssuer {
  /** The issuer URL for an API at `apiUrl`. */
  issuer(apiUrl: string): string;
  /** The settings the local API checks tokens with (the same verifier as deployed). */
  jwtSettings(apiUrl: string): JwtAuthSettings;
  /** Mints a token for `tenant` and `sub`. */
  mint(
    apiUrl: string,
    claims: { tenant: string; sub: string; aud?: string; expiresInSeconds?: number },
  ): Promise<string>;
  /** Answers a request under `/_local/oidc` or `/_local/token`; undefined for any other path. */
  handle(apiUrl: string, request: LocalRequest): Promise<LocalResponse | undefined>;
}

/** A redirect the issuer may send a code to: the console on a loopback address, never elsewhere. */
function isLoopbackRedirect(uri: string): boolean {
  const url = new URL(uri);
  return url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): LocalResponse => ({
  status,
  headers: { "content-type": "application/json", "cache-control": "no-store", ...headers },
  body: JSON.stringify(body),
});

const oauthError = (status: number, error: string, description: string) =>
  json(status, { error, error_description: description });

export async function createLocalIssuer(): Promise<LocalIssuer> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid: KEY_ID, alg: "ES256", use: "sig" };
  const codes = new Map<string, PendingCode>();
  const issuer = (apiUrl: string) => `${apiUrl.replace(/\/+$/, "")}${LOCAL_ISSUER_PATH}`;

  const mint: LocalIssuer["mint"] = (apiUrl, claims) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ [LOCAL_TENANT_CLAIM]: claims.tenant, client_id: LOCAL_CLIENT_ID })
      .setProtectedHeader({ alg: "ES256", kid: KEY_ID, typ: "JWT" })
      .setIssuer(issuer(apiUrl))
      .setAudience(claims.aud ?? LOCAL_AUDIENCE)
      .setSubject(claims.sub)
      .setIssuedAt(now)
      .setJti(randomUUID())
      .setExpirationTime(now + (claims.expiresInSeconds ?? DEFAULT_TOKEN_SECONDS))
      .sign(privateKey);
  };

  const discovery = (apiUrl: string) => {
    const base = issuer(apiUrl);
    return {
      issuer: base,
      jwks_uri: `${base}/jwks`,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code"],
      code_challenge_methods_supported: ["S256"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["ES256"],
      token_endpoint_auth_methods_supported: ["none"],
    };
  };

  async function handle(apiUrl: string, request: LocalRequest): Promise<LocalResponse | undefined> {
    const { method, path } = request;
    const base = LOCAL_ISSUER_PATH;
    if (method === "GET" && path === "/_local/token") {
      const parsed = TokenQuerySchema.safeParse(Object.fromEntries(request.query));
      if (!parsed.success) return oauthError(400, "invalid_request", z.prettifyError(parsed.error));
      const { tenant, sub, aud, expiresIn } = parsed.data;
      const token = await mint(apiUrl, {
        tenant,
        sub,
        ...(aud ? { aud } : {}),
        ...(expiresIn === undefined ? {} : { expiresInSeconds: expiresIn }),
      });
      return json(200, {
        access_token: token,
        token_type: "Bearer",
        expires_in: expiresIn ?? DEFAULT_TOKEN_SECONDS,
      });
    }
    if (method === "GET" && path === `${base}/.well-known/openid-configuration`)
      return json(200, discovery(apiUrl));
    if (method === "GET" && path === `${base}/jwks`) return json(200, { keys: [publicJwk] });
    if (path === `${base}/authorize`) return authorize(request);
    if (method === "POST" && path === `${base}/token`) return exchange(apiUrl, request);
    return undefined;
  }

  /** GET: the sign-in page; POST (the page's form): a code for the redirect URI. */
  function authorize(request: LocalRequest): LocalResponse {
    const fields = request.method === "POST" ? new URLSearchParams(request.body) : request.query;
    const parsed = AuthorizeQuerySchema.safeParse(Object.fromEntries(fields));
    if (!parsed.success) return oauthError(400, "invalid_request", z.prettifyError(parsed.error));
    const query = parsed.data;
    if (!isLoopbackRedirect(query.redirect_uri)) {
      return oauthError(
        400,
        "invalid_request",
        "redirect_uri must be a loopback http URL (the local console)",
      );
    }
    if (request.method !== "POST") return signInPage(query);
    const tenant = TenantIdSchema.safeParse(fields.get("tenant") ?? "");
    const sub = SubSchema.safeParse(fields.get("sub") ?? "");
    if (!tenant.success || !sub.success) return signInPage(query, "Give a tenant id and a user name.");
    const code = randomBytes(24).toString("base64url");
    codes.set(code, {
      tenant: tenant.data,
      sub: sub.data,
      redirectUri: query.redirect_uri,
      challenge: query.code_challenge,
      expiresAt: Date.now() + CODE_MS,
    });
    const target = new URL(query.redirect_uri);
    target.searchParams.set("code", code);
    if (query.state !== "") target.searchParams.set("state", query.state);
    return { status: 303, headers: { location: target.toString(), "cache-control": "no-store" }, body: "" };
  }

  /** The code for tokens, once, with the verifier whose S256 hash the authorization request sent. */
  async function exchange(apiUrl: string, request: LocalRequest): Promise<LocalResponse> {
    const parsed = TokenFormSchema.safeParse(Object.fromEntries(new URLSearchParams(request.body)));
    if (!parsed.success) return oauthError(400, "invalid_request", z.prettifyError(parsed.error));
    const form = parsed.data;
    const pending = codes.get(form.code);
    codes.delete(form.code);
    const challenge = createHash("sha256").update(form.code_verifier).digest("base64url");
    if (
      pending === undefined ||
      pending.expiresAt < Date.now() ||
      pending.redirectUri !== form.redirect_uri ||
      pending.challenge !== challenge
    ) {
      return oauthError(400, "invalid_grant", "the code is unknown, used, expired, or not for this verifier");
    }
    const token = await mint(apiUrl, { tenant: pending.tenant, sub: pending.sub });
    return json(200, {
      access_token: token,
      id_token: token,
      token_type: "Bearer",
      expires_in: DEFAULT_TOKEN_SECONDS,
    });
  }

  return {
    issuer,
    jwtSettings: (apiUrl) => ({
      issuer: issuer(apiUrl),
      audience: LOCAL_AUDIENCE,
      audienceClaim: "aud",
      tenantClaim: LOCAL_TENANT_CLAIM,
      algorithms: ["ES256"],
      clockToleranceSeconds: 5,
      clientId: LOCAL_CLIENT_ID,
    }),
    mint,
    handle,
  };
}

/** The sign-in page: a tenant and a user name, posted back to the authorization endpoint. */
function signInPage(query: z.output<typeof AuthorizeQuerySchema>, problem?: string): LocalResponse {
  const hidden = Object.entries(query)
    .map(
      ([name, value]) =>
        `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(String(value))}">`,
    )
    .join("");
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in to goal-loops (local)</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>Sign in to goal-loops (local issuer)</h1>
<p>The local stack signs you in as any tenant and user: tokens are for this machine only.</p>
${problem === undefined ? "" : `<p role="alert">${escapeHtml(problem)}</p>`}
<form method="post">${hidden}
<p><label for="tenant">Tenant</label> <input id="tenant" name="tenant" required pattern="[A-Za-z0-9][A-Za-z0-9_\\-]{0,63}" autocomplete="organization"></p>
<p><label for="sub">User</label> <input id="sub" name="sub" required value="local-user" autocomplete="username"></p>
<p><button type="submit">Sign in</button></p>
</form></main></body></html>`;
  return {
    status: 200,
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
    body,
  };
}
