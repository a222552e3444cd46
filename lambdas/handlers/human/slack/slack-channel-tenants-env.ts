import { ValidationError } from "../../../core/goal/errors";
import { parseOrThrow } from "../../../core/goal/validation";
import {
  SLACK_CHANNEL_TENANTS_ENV,
  SlackChannelTenantsSchema,
} from "../../../core/human/slack/slack-tenants";

/**
 * `approvals.slack.channelTenants` as the Slack door's construct sets it (SLACK_CHANNEL_TENANTS,
 * JSON): channel id → tenant. Unset: no channel has a tenant of its own. A value that does not
 * parse stops the function at init, naming the variable: a door that guessed would act for the
 * wrong tenant.
 */
export function slackChannelTenantsFromEnv(env: NodeJS.ProcessEnv): ReadonlyMap<string, string> {
  const text = env[SLACK_CHANNEL_TENANTS_ENV];
  if (text === undefined || text.trim() === "") return new Map();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ValidationError(`Environment variable ${SLACK_CHANNEL_TENANTS_ENV} is not JSON`, [
      { path: SLACK_CHANNEL_TENANTS_ENV, message: "not JSON" },
    ]);
  }
  return new Map(Object.entries(parseOrThrow(SlackChannelTenantsSchema, value, SLACK_CHANNEL_TENANTS_ENV)));
}
