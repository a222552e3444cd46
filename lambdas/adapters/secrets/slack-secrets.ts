import { GoalLoopsError } from "../../core/goal/errors";
import type { PreviousSigningSecret } from "../../core/human/slack/verify-signature";
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

/** How long after a rotation the previous signing secret still verifies, unless configured. */
export const DEFAULT_SLACK_ROTATION_WINDOW_SECONDS = 24 * 3600;

/** One version stage of a secret with when that version was made; undefined when no version has the stage. */
export type ReadDatedSecretVersion = (
  arn: string,
  versionStage: string,
) => Promise<{ readonly value: string; readonly createdAt: Date } | undefined>;

/**
 * The signing secret before the last rotation (`AWSPREVIOUS` of `SLACK_SIGNING_SECRET_ARN`),
 * accepted for `SLACK_ROTATION_WINDOW_SECONDS` (default a day) after the current version was made:
 * a click signed while the new secret was being put in Slack's app settings and in Secrets Manager
 * still verifies; a leaked old secret stops working when the window closes. Deployed only (the
 * local runtime's inline secret never rotates). Read apart from Powertools, whose cache keys on the
 * secret's name alone; cached here as long, a missing version too.
 */
export function previousSlackSigningSecretSource(
  env: Readonly<Record<string, string | undefined>>,
  readVersion: ReadDatedSecretVersion,
  now: () => number = Date.now,
): () => Promise<PreviousSigningSecret | undefined> {
  const arn = env.SLACK_SIGNING_SECRET_ARN;
  if (env.SLACK_SIGNING_SECRET || arn === undefined || arn === "") return async () => undefined;
  const configured = Number(env.SLACK_ROTATION_WINDOW_SECONDS ?? DEFAULT_SLACK_ROTATION_WINDOW_SECONDS);
  const windowMs =
    (Number.isFinite(configured) && configured >= 0 ? configured : DEFAULT_SLACK_ROTATION_WINDOW_SECONDS) *
    1000;
  let cached: { readonly value: PreviousSigningSecret | undefined; readonly at: number } | undefined;
  return async () => {
    if (cached !== undefined && now() - cached.at < SECRET_MAX_AGE_SECONDS * 1000) return cached.value;
    const [current, previous] = await Promise.all([
      readVersion(arn, "AWSCURRENT"),
      readVersion(arn, "AWSPREVIOUS"),
    ]);
    const secret = previous?.value.trim();
    cached = {
      value:
        current === undefined || secret === undefined || secret === ""
          ? undefined
          : { secret, acceptedUntil: new Date(current.createdAt.getTime() + windowMs) },
      at: now(),
    };
    return cached.value;
  };
}
