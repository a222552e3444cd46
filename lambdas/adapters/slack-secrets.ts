import { getSecret } from "@aws-lambda-powertools/parameters/secrets";
import { GoalLoopsError } from "../core/errors";

/** A Slack secret is configured nowhere, or its stored value is empty: a deployment bug. */
export class SlackSecretError extends GoalLoopsError {
  override readonly name = "SlackSecretError";
}

/** Reads one secret when needed; Powertools caches it, so a warm function does not call Secrets Manager. */
export type SecretSource = () => Promise<string>;

export interface SlackSecrets {
  /** Verifies requests from Slack (the app's "Signing Secret"). */
  readonly signingSecret: SecretSource;
  /** Posts messages (`xoxb-…`). */
  readonly botToken: SecretSource;
}

/** Rotation takes effect within this long; in between, no Secrets Manager call per request. */
const SECRET_MAX_AGE_SECONDS = 300;

function secretSource(env: Readonly<Record<string, string | undefined>>, name: string): SecretSource {
  const inline = env[name];
  if (inline !== undefined && inline !== "") return async () => inline;
  const arnName = `${name}_ARN`;
  const arn = env[arnName];
  if (arn === undefined || arn === "") {
    // Refused on first use, not at cold start: a notifier that only posts needs no signing secret.
    return async () => {
      throw new SlackSecretError(`Neither ${name} nor ${arnName} is set`);
    };
  }
  return async () => {
    const value = await getSecret(arn, { maxAge: SECRET_MAX_AGE_SECONDS });
    if (typeof value !== "string" || value.trim() === "") {
      throw new SlackSecretError(`Secret ${arnName} has no string value: put the Slack app's value in it`);
    }
    return value.trim();
  };
}

/**
 * Where the Slack secrets come from: `SLACK_SIGNING_SECRET` / `SLACK_BOT_TOKEN` when set (the local
 * runtime, which generates and prints them), else the Secrets Manager secrets named by
 * `SLACK_SIGNING_SECRET_ARN` / `SLACK_BOT_TOKEN_ARN` (deployed), fetched through Powertools' cache.
 */
export function slackSecretsFromEnv(env: Readonly<Record<string, string | undefined>>): SlackSecrets {
  return {
    signingSecret: secretSource(env, "SLACK_SIGNING_SECRET"),
    botToken: secretSource(env, "SLACK_BOT_TOKEN"),
  };
}
