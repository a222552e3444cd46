/**
 * SigV4 signing for a deployed goals API, and the rule for when to sign. The SDK packages load on
 * the first signed request only: a client of the local stack never loads them.
 */

/** What the client sends requests with: `fetch`, or one that signs them. */
export type ApiFetch = (url: string, init?: RequestInit) => Promise<Response>;

/** A deployed API's stage URL: `https://{id}.execute-api.{region}.amazonaws.com/{stage}/`. */
const EXECUTE_API_HOST = /^[a-z0-9]+\.execute-api\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/;

/** The API is on this machine (the local stack): nothing to sign, no credentials needed. */
export function isLoopback(url: URL): boolean {
  return (
    url.hostname === "localhost" || url.hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(url.hostname)
  );
}

/** The region to sign for: the one in an execute-api host name, else the given or configured one. */
export function regionFor(url: URL, region: string | undefined): string | undefined {
  return EXECUTE_API_HOST.exec(url.hostname)?.[1] ?? region;
}

/** Signing is impossible as asked (no region for a custom domain). */
export class SigningSetupError extends Error {
  override readonly name = "SigningSetupError";
}

export interface SignedFetchOptions {
  /** The API's base URL; a loopback URL is not signed. */
  readonly apiUrl: string;
  /** A named profile of the shared config files (`--profile`); else the SDK's default chain. */
  readonly profile?: string;
  /** For a custom domain (the region is not in the host name). @default AWS_REGION / AWS_DEFAULT_REGION */
  readonly region?: string;
}

/**
 * A fetch that signs every request with SigV4 for `execute-api` with the caller's AWS credentials
 * (the SDK's credential chain: environment, `--profile`, SSO, shared files, container and instance
 * roles), as the deployed API's IAM authorization wants. Requests to a loopback URL go out unsigned.
 * Throws SigningSetupError at once when no region can be told.
 */
export function signedFetch(options: SignedFetchOptions): ApiFetch {
  const base = new URL(options.apiUrl);
  if (isLoopback(base)) return (url, init) => fetch(url, init);
  const region = regionFor(base, options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION);
  if (region === undefined) {
    throw new SigningSetupError(
      `Cannot tell the region of ${base.host}: pass --region (or set AWS_REGION) for a custom domain`,
    );
  }
  let signer:
    | Promise<{ sign: (request: SignableRequest) => Promise<{ headers: Record<string, string> }> }>
    | undefined;
  const signerFor = async () => {
    const [{ defaultProvider }, { Sha256 }, { SignatureV4 }] = await Promise.all([
      import("@aws-sdk/credential-provider-node"),
      import("@smithy/core/checksum"),
      import("@smithy/signature-v4"),
    ]);
    return new SignatureV4({
      service: "execute-api",
      region,
      sha256: Sha256,
      credentials: defaultProvider(options.profile === undefined ? {} : { profile: options.profile }),
    });
  };
  return async (url, init = {}) => {
    signer ??= signerFor();
    const target = new URL(url);
    const headers: Record<string, string> = { host: target.host };
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = typeof init.body === "string" ? init.body : undefined;
    const signed = await (await signer).sign({
      method: (init.method ?? "GET").toUpperCase(),
      protocol: target.protocol,
      hostname: target.hostname,
      ...(target.port === "" ? {} : { port: Number(target.port) }),
      path: target.pathname,
      query: Object.fromEntries(target.searchParams),
      headers,
      ...(body === undefined ? {} : { body }),
    });
    return fetch(url, { ...init, headers: signed.headers });
  };
}

interface SignableRequest {
  method: string;
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: string;
}
