import * as z from "zod";

/**
 * Sign-in for `goal-loops console --issuer … --client-id …`: the console server reads the issuer's
 * OIDC discovery document itself (OpenID Connect Discovery 1.0 §4) and hands the page only what the
 * authorization-code flow needs, at its own origin, so the page makes no cross-origin discovery
 * call. The code-for-token exchange goes through the console server too (`/_console/token`): the
 * page then needs no CORS from the issuer's token endpoint.
 */

/** Where the page reads the sign-in settings, and where it trades its code for a token. */
export const CONSOLE_SIGN_IN_PATH = "/_console/sign-in.json";
export const CONSOLE_TOKEN_PATH = "/_console/token";

export interface ConsoleIssuerOptions {
  /** The issuer URL, exactly as the API's `api.auth.jwt.issuer` names it. */
  readonly issuer: string;
  /** The console's (public, secretless) client id at that issuer. */
  readonly clientId: string;
}

const DiscoverySchema = z.object({
  issuer: z.string(),
  authorization_endpoint: z.url(),
  token_endpoint: z.url(),
});

/** What the page gets at CONSOLE_SIGN_IN_PATH. */
export interface ConsoleSignIn {
  readonly authorization_endpoint: string;
  /** The console server's relay to the issuer's token endpoint (same origin as the page). */
  readonly token_endpoint: string;
  readonly client_id: string;
}

/** The issuer's discovery document is unreachable, malformed, or names another issuer. */
export class IssuerDiscoveryError extends Error {
  override readonly name = "IssuerDiscoveryError";
}

/**
 * The issuer's endpoints. The document's `issuer` must be the configured one (Discovery §4.3), so a
 * typo'd URL that happens to serve some other issuer's document is refused here, not at sign-in.
 */
export async function discoverConsoleIssuer(
  options: ConsoleIssuerOptions,
): Promise<{ signIn: ConsoleSignIn; tokenEndpoint: string }> {
  const issuer = options.issuer.replace(/\/+$/, "");
  const url = `${issuer}/.well-known/openid-configuration`;
  let body: unknown;
  try {
    const response = await fetch(url, { headers: { accept: "application/json" } });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    body = await response.json();
  } catch (error) {
    // fetch's own message is only "fetch failed"; the reason (ECONNREFUSED, a DNS miss) is its cause.
    const cause: unknown = error instanceof Error ? error.cause : undefined;
    const why = [error, cause]
      .filter((part) => part !== undefined)
      .map((part) => (part instanceof Error ? part.message : String(part)))
      .join(": ");
    throw new IssuerDiscoveryError(`Cannot read the issuer's discovery document at ${url}: ${why}`, {
      cause: error,
    });
  }
  const parsed = DiscoverySchema.safeParse(body);
  if (!parsed.success) {
    throw new IssuerDiscoveryError(
      `The discovery document at ${url} is not an OIDC one: ${z.prettifyError(parsed.error)}`,
    );
  }
  if (parsed.data.issuer.replace(/\/+$/, "") !== issuer) {
    throw new IssuerDiscoveryError(
      `The discovery document at ${url} is for issuer ${parsed.data.issuer}, not ${options.issuer}`,
    );
  }
  return {
    signIn: {
      authorization_endpoint: parsed.data.authorization_endpoint,
      token_endpoint: CONSOLE_TOKEN_PATH,
      client_id: options.clientId,
    },
    tokenEndpoint: parsed.data.token_endpoint,
  };
}

/** The page's bearer token header, when it sent one: such a call is the signed-in person's own. */
export function bearerHeader(authorization: string | undefined): string | undefined {
  return authorization !== undefined && /^bearer\s+\S/i.test(authorization) ? authorization : undefined;
}
