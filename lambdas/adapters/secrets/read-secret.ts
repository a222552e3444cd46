/** Reads a Secrets Manager secret through Powertools' cache: its `getSecret`, or the same call deferred. */
export type ReadSecret = (
  arn: string,
  options: { readonly maxAge: number; readonly forceFetch?: boolean },
) => Promise<unknown>;

/** Rotation takes effect within this long; in between, no Secrets Manager call per request. */
export const SECRET_MAX_AGE_SECONDS = 300;

/**
 * Powertools' `getSecret`, loaded on the first read: the module pulls in
 * `@aws-sdk/client-secrets-manager`, which RequestApproval only needs when an approval goes to
 * Slack or email, so its cold start does not pay for it. The module system loads it once per
 * container, and Powertools' cache lives in that one module, so `maxAge` still holds. A function
 * that reads a secret on every request (the doors) passes `getSecret` itself, loaded at init.
 */
export const readSecretWhenNeeded: ReadSecret = async (arn, options) => {
  const { getSecret } = await import("@aws-lambda-powertools/parameters/secrets");
  return getSecret(arn, options);
};
