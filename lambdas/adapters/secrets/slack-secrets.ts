import { GoalLoopsError } from "../../core/goal/errors";
import { type ReadSecret, readSecretWhenNeeded, SECRET_MAX_AGE_SECONDS } from "./read-secret";

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

function secretSource(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  readSecret: ReadSecret,
): SecretSource {
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
    const value = await readSecret(arn, { maxAge: SECRET_MAX_AGE_SECONDS });
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
 * A function that reads a secret on every request (the Slack door) passes `getSecret` itself,
 * loaded at init.
 */
export function slackSecretsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  readSecret: ReadSecret = readSecretWhenNeeded,
): SlackSecrets {
  return {
    signingSecret: secretSource(env, "SLACK_SIGNING_SECRET", readSecret),
    botToken: secretSource(env, "SLACK_BOT_TOKEN", readSecret),
  };
}
