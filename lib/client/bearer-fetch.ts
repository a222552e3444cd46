import type { ApiFetch } from "./sigv4-fetch";

/** Where the CLI reads a bearer token when `--token` is not given. */
export const TOKEN_ENV = "GOAL_LOOPS_TOKEN";

/** A compact JWT, the only kind of token the API's authorizer accepts. */
const COMPACT_JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** The token is not a JWT: refused before it is sent anywhere. */
export class BadTokenError extends Error {
  override readonly name = "BadTokenError";
}

/**
 * Requests that carry `Authorization: Bearer <token>` (a JWT of the configured OIDC issuer, or of the
 * local stack's own at `/_local/token`) instead of a SigV4 signature. A pasted token often keeps a
 * `Bearer ` prefix or a trailing newline: both are dropped.
 */
export function bearerFetch(token: string): ApiFetch {
  const bare = token.trim().replace(/^bearer\s+/i, "");
  if (bare.length > 8192 || !COMPACT_JWT.test(bare)) {
    throw new BadTokenError(
      `The token (--token or ${TOKEN_ENV}) is not a JWT: expected three base64url parts separated by dots`,
    );
  }
  return (url, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("authorization", `Bearer ${bare}`);
    return fetch(url, { ...init, headers });
  };
}
