import { getSecret } from "@aws-lambda-powertools/parameters/secrets";
import { ApprovalLinkSecretError } from "../core/email/approval-link";

/** The key that signs and verifies email approval links, read when needed (cached). */
export type LinkSecretSource = () => Promise<string>;

/** Rotation takes effect within this long; in between, no Secrets Manager call per request. */
const SECRET_MAX_AGE_SECONDS = 300;

/**
 * Where the email link key comes from: `EMAIL_LINK_SECRET` when set (the local runtime, which
 * generates it), else the Secrets Manager secret `EMAIL_LINK_SECRET_ARN` (deployed), fetched with
 * Powertools' cache. Neither set is a broken deployment, refused at cold start.
 */
export function emailLinkSecretSource(env: Readonly<Record<string, string | undefined>>): LinkSecretSource {
  const inline = env.EMAIL_LINK_SECRET;
  if (inline !== undefined && inline !== "") return async () => inline;
  const arn = env.EMAIL_LINK_SECRET_ARN;
  if (arn === undefined || arn === "") {
    throw new ApprovalLinkSecretError("Neither EMAIL_LINK_SECRET nor EMAIL_LINK_SECRET_ARN is set");
  }
  return async () => {
    const value = await getSecret(arn, { maxAge: SECRET_MAX_AGE_SECONDS });
    if (typeof value !== "string" || value === "") {
      throw new ApprovalLinkSecretError(`Secret ${arn} has no string value`);
    }
    return value;
  };
}
