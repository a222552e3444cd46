import { ApprovalLinkSecretError } from "../../core/human/email/approval-link";
import { type ReadSecret, readSecretWhenNeeded, SECRET_MAX_AGE_SECONDS } from "./read-secret";

/** The key that signs and verifies email approval links, read when needed (cached). */
export type LinkSecretSource = () => Promise<string>;

/**
 * The key links were signed with before the last rotation (the secret's `AWSPREVIOUS` version),
 * or undefined when there is none: the email door tries it when a link does not verify with the
 * current key, so links in flight survive one rotation.
 */
export type PreviousLinkSecretSource = () => Promise<string | undefined>;

/** Reads one version stage of a secret; undefined when the secret has no version in that stage. */
export type ReadSecretVersion = (arn: string, versionStage: string) => Promise<string | undefined>;

/**
 * Where the email link key comes from: `EMAIL_LINK_SECRET` when set (the local runtime, which
 * generates it), else the Secrets Manager secret `EMAIL_LINK_SECRET_ARN` (deployed), fetched with
 * Powertools' cache. Neither set is a broken deployment, refused at cold start. A function that
 * reads the key on every request (the email door) passes `getSecret` itself, loaded at init.
 */
export function emailLinkSecretSource(
  env: Readonly<Record<string, string | undefined>>,
  readSecret: ReadSecret = readSecretWhenNeeded,
): LinkSecretSource {
  const inline = env.EMAIL_LINK_SECRET;
  if (inline !== undefined && inline !== "") return async () => inline;
  const arn = env.EMAIL_LINK_SECRET_ARN;
  if (arn === undefined || arn === "") {
    throw new ApprovalLinkSecretError("Neither EMAIL_LINK_SECRET nor EMAIL_LINK_SECRET_ARN is set");
  }
  return async () => {
    const value = await readSecret(arn, { maxAge: SECRET_MAX_AGE_SECONDS });
    if (typeof value !== "string" || value === "") {
      throw new ApprovalLinkSecretError(`Secret ${arn} has no string value`);
    }
    return value;
  };
}

/**
 * The key before the last rotation, deployed only (`EMAIL_LINK_SECRET_ARN`; the local runtime's
 * inline key never rotates). Read apart from Powertools, whose cache keys on the secret's name
 * alone and would mix the two versions up; cached here as long, a missing version too.
 */
export function previousEmailLinkSecretSource(
  env: Readonly<Record<string, string | undefined>>,
  readVersion: ReadSecretVersion,
  now: () => number = Date.now,
): PreviousLinkSecretSource {
  const arn = env.EMAIL_LINK_SECRET_ARN;
  if (env.EMAIL_LINK_SECRET || arn === undefined || arn === "") return async () => undefined;
  let cached: { readonly value: string | undefined; readonly at: number } | undefined;
  return async () => {
    if (cached !== undefined && now() - cached.at < SECRET_MAX_AGE_SECONDS * 1000) return cached.value;
    const value = await readVersion(arn, "AWSPREVIOUS");
    cached = { value: value === "" ? undefined : value, at: now() };
    return cached.value;
  };
}
