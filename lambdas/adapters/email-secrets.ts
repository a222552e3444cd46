import { ApprovalLinkSecretError } from "../core/human/email/approval-link";
import { type ReadSecret, readSecretWhenNeeded, SECRET_MAX_AGE_SECONDS } from "./read-secret";

/** The key that signs and verifies email approval links, read when needed (cached). */
export type LinkSecretSource = () => Promise<string>;

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
