/**
 * Sign-in through the API's OIDC issuer (authorization code with PKCE, RFC 7636). The console finds
 * it on the page's origin: first `goal-loops console --issuer …`'s settings at `/_console/sign-in.json`
 * (lib/local/cli/console-sign-in.ts), then the local stack's own issuer at `/_local/oidc`. Without
 * either (a deployed API behind `goal-loops console` with no --issuer, which signs with SigV4) the
 * console works as before and offers no sign-in. The token lives in this tab's sessionStorage only:
 * closing the tab signs out, and no other site can read it.
 */

const CONSOLE_SIGN_IN_PATH = "/_console/sign-in.json";
const ISSUER_PATH = "/_local/oidc";
/** The console's client id at the local issuer (lib/local/api/local-issuer.ts). */
const LOCAL_CLIENT_ID = "goal-loops-console";
const TOKEN_KEY = "goal-loops.token";
const PENDING_KEY = "goal-loops.sign-in";

interface Discovery {
  readonly authorization_endpoint: string;
  readonly token_endpoint: string;
  readonly client_id: string;
}

interface PendingSignIn {
  readonly state: string;
  readonly verifier: string;
  readonly redirectUri: string;
  readonly tokenEndpoint: string;
  readonly clientId: string;
}

/** The signed-in caller's bearer token, if any. */
export function currentToken(): string | undefined {
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function signOut(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

/** `fetch` on the page's origin, with the signed-in caller's token when there is one. */
export function authorizedFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const token = currentToken();
  if (token === undefined) return fetch(path, init);
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${token}`);
  return fetch(path, { ...init, headers });
}

/** The issuer's endpoints and the console's client id, or undefined when the page's origin names no issuer. */
export async function discoverIssuer(): Promise<Discovery | undefined> {
  return (
    (await readEndpoints(CONSOLE_SIGN_IN_PATH, undefined)) ??
    (await readEndpoints(`${ISSUER_PATH}/.well-known/openid-configuration`, LOCAL_CLIENT_ID))
  );
}

/** The endpoints a JSON document at `path` names, with its client id or else `defaultClientId`. */
async function readEndpoints(
  path: string,
  defaultClientId: string | undefined,
): Promise<Discovery | undefined> {
  try {
    const response = await fetch(path);
    if (!response.ok) return undefined;
    const found = (await response.json()) as Partial<Record<keyof Discovery, unknown>>;
    const clientId = typeof found.client_id === "string" ? found.client_id : defaultClientId;
    return typeof found.authorization_endpoint === "string" &&
      typeof found.token_endpoint === "string" &&
      clientId !== undefined
      ? {
          authorization_endpoint: found.authorization_endpoint,
          token_endpoint: found.token_endpoint,
          client_id: clientId,
        }
      : undefined;
  } catch {
    return undefined;
  }
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

function randomText(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** Sends the browser to the issuer's sign-in page with a fresh PKCE verifier and state. */
export async function signIn(discovery: Discovery): Promise<void> {
  const verifier = randomText();
  const state = randomText();
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))),
  );
  const redirectUri = `${location.origin}${location.pathname}`;
  const pending: PendingSignIn = {
    state,
    verifier,
    redirectUri,
    tokenEndpoint: discovery.token_endpoint,
    clientId: discovery.client_id,
  };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const target = new URL(discovery.authorization_endpoint, location.origin);
  for (const [name, value] of Object.entries({
    response_type: "code",
    client_id: discovery.client_id,
    redirect_uri: redirectUri,
    scope: "openid",
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
  })) {
    target.searchParams.set(name, value);
  }
  location.assign(target.toString());
}

/**
 * On the way back from the issuer (`?code=…&state=…`): trades the code for a token once, when the
 * state is the one this tab sent, and takes the code out of the address bar. Answers an error
 * message when the sign-in did not complete, undefined otherwise.
 */
export async function completeSignIn(): Promise<string | undefined> {
  const params = new URLSearchParams(location.search);
  const code = params.get("code");
  if (code === null) return undefined;
  const pending = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  history.replaceState(null, "", `${location.pathname}${location.hash}`);
  if (pending === null) return "The sign-in was not started from this tab: sign in again.";
  const sent = JSON.parse(pending) as PendingSignIn;
  if (params.get("state") !== sent.state) return "The sign-in answer does not match this tab's request.";
  const response = await fetch(sent.tokenEndpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      code_verifier: sent.verifier,
      redirect_uri: sent.redirectUri,
      client_id: sent.clientId,
    }).toString(),
  });
  const answer = (await response.json().catch(() => ({}))) as { access_token?: unknown };
  if (!response.ok || typeof answer.access_token !== "string") return "The issuer refused the sign-in.";
  sessionStorage.setItem(TOKEN_KEY, answer.access_token);
  return undefined;
}
