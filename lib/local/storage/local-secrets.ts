import { randomBytes } from "node:crypto";
import { MIN_LINK_SECRET_LENGTH } from "../../../lambdas/core/human/email/approval-link";
import { LocalSecretError } from "../shared/errors";

/** The secrets the Slack and email doors read from Secrets Manager when deployed. */
export interface LocalSecrets {
  readonly slackSigningSecret: string;
  readonly slackBotToken: string;
  readonly emailLinkSecret: string;
}

const VARIABLES = {
  slackSigningSecret: "SLACK_SIGNING_SECRET",
  slackBotToken: "SLACK_BOT_TOKEN",
  emailLinkSecret: "EMAIL_LINK_SECRET",
} as const satisfies Record<keyof LocalSecrets, string>;

/**
 * The local secrets: each from its environment variable (`SLACK_SIGNING_SECRET`, `SLACK_BOT_TOKEN`,
 * `EMAIL_LINK_SECRET`), or generated when absent. `generated` names the variables that were made up,
 * so `npm start` can print them (to sign a Slack request by hand, say).
 */
export function localSecrets(env: NodeJS.ProcessEnv = process.env): {
  secrets: LocalSecrets;
  generated: string[];
} {
  const generated: string[] = [];
  const pick = (key: keyof LocalSecrets, make: () => string) => {
    const value = env[VARIABLES[key]];
    if (value) return value;
    generated.push(VARIABLES[key]);
    return make();
  };
  const secrets = {
    slackSigningSecret: pick("slackSigningSecret", () => randomBytes(16).toString("hex")),
    slackBotToken: pick("slackBotToken", () => `xoxb-local-${randomBytes(12).toString("hex")}`),
    emailLinkSecret: pick("emailLinkSecret", () => randomBytes(32).toString("base64url")),
  };
  assertUsableSecrets(secrets);
  return { secrets, generated };
}

/**
 * Refuses secrets the doors could not use, with the reason, instead of letting the stack start and
 * quietly fall back: a short `EMAIL_LINK_SECRET` would make every approval email a plain record
 * without links.
 */
export function assertUsableSecrets(secrets: LocalSecrets): void {
  if (secrets.emailLinkSecret.length < MIN_LINK_SECRET_LENGTH) {
    throw new LocalSecretError(
      `${VARIABLES.emailLinkSecret} has ${secrets.emailLinkSecret.length} characters; email approval links are signed with it (HMAC-SHA256) and need at least ${MIN_LINK_SECRET_LENGTH}. Set a longer one, or unset it to have one generated.`,
    );
  }
}

/** The variables the doors read when they are set instead of Secrets Manager ARNs. */
export function secretEnvironment(secrets: LocalSecrets | undefined): Record<string, string> {
  const { secrets: resolved } = secrets === undefined ? localSecrets() : { secrets };
  assertUsableSecrets(resolved);
  return {
    [VARIABLES.slackSigningSecret]: resolved.slackSigningSecret,
    [VARIABLES.slackBotToken]: resolved.slackBotToken,
    [VARIABLES.emailLinkSecret]: resolved.emailLinkSecret,
  };
}
