import { ValidationError } from "../core/goal/errors";
import { parseOrThrow } from "../core/goal/validation";
import * as z from "../core/zod";

/** Slack channel ids: `C…` (public), `G…` (private), `D…` (direct message). */
const SLACK_CHANNEL_ID = /^[CGD][A-Z0-9]{2,31}$/;

/** What a model passes as `channel`: a short name, as `notify.channels` keys it. */
export const NOTIFY_CHANNEL_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Hosts only this machine reaches: the one place a webhook may be plain `http` (local tests). */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "[::1]"]);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase());
}

export const SlackDestinationSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .strictObject({
      type: z.literal("slack"),
      channel: z
        .string()
        .check(z.regex(SLACK_CHANNEL_ID, "must be a Slack channel id such as C0123ABCD"))
        .register(z.globalRegistry, {
          description: "The Slack channel id the bot posts to (chat.postMessage); the bot must be a member",
        }),
    })
    .register(z.globalRegistry, { description: "Post to a Slack channel with the Slack door's bot token" }),
);

export const EmailDestinationSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .strictObject({
      type: z.literal("email"),
      to: z
        .array(z.email("must be an e-mail address"))
        .check(z.minLength(1), z.maxLength(50))
        .register(z.globalRegistry, {
          description: "Recipients (SES v2 SendEmail, from notify.emailSender)",
        }),
      subject: z
        ._default(z.string().check(z.minLength(1), z.maxLength(200)), "goal-loops notification")
        .register(z.globalRegistry, {
          description: "The e-mail's subject; default: 'goal-loops notification'",
        }),
    })
    .register(z.globalRegistry, { description: "Send an e-mail through SES v2" }),
);

export const WebhookDestinationSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .strictObject({
      type: z.literal("webhook"),
      url: z
        .url({ protocol: /^https?$/, error: "must be an absolute https URL" })
        .check(
          z.maxLength(2048),
          z.refine((url) => {
            const parsed = new URL(url);
            return parsed.protocol === "https:" || isLoopbackHost(parsed.hostname);
          }, "must be https (plain http only to 127.0.0.1 or localhost, for local tests)"),
        )
        .register(z.globalRegistry, {
          description: "Where the message is POSTed as JSON; its host must be in http.allowedHosts",
        }),
    })
    .register(z.globalRegistry, {
      description: "POST the message as JSON to an allow-listed HTTPS endpoint",
    }),
);

export const NotifyDestinationSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.discriminatedUnion("type", [SlackDestinationSchema, EmailDestinationSchema, WebhookDestinationSchema]),
);
export type NotifyDestination = z.output<typeof NotifyDestinationSchema>;

export const NotifyChannelsSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.record(
    z
      .string()
      .check(
        z.regex(NOTIFY_CHANNEL_NAME_PATTERN, "must be a channel name: letters, digits, . _ - (up to 64)"),
      ),
    NotifyDestinationSchema,
  ),
);
export type NotifyChannels = z.output<typeof NotifyChannelsSchema>;

/** A destination as a human reads it in the ledger and in errors: `slack C0123ABCD`. */
export function describeDestination(destination: NotifyDestination): string {
  switch (destination.type) {
    case "slack":
      return `slack ${destination.channel}`;
    case "email":
      return `email ${destination.to.join(", ")}`;
    case "webhook": {
      // Not the whole URL: a webhook's path often is its secret (Slack and Teams incoming webhooks).
      const url = new URL(destination.url);
      return `webhook ${url.protocol}//${url.host}`;
    }
  }
}

/**
 * The channels of `NOTIFY_CHANNELS` (set by the GoalLoops construct from `notify.channels`): none
 * when unset. A value that does not parse throws at cold start, naming the variable.
 */
export function notifyChannelsFromEnv(value: string | undefined): NotifyChannels {
  if (value === undefined || value.trim() === "") return {};
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch (error) {
    throw new ValidationError(
      "Environment variable NOTIFY_CHANNELS is not JSON",
      [{ path: "NOTIFY_CHANNELS", message: "must be a JSON object of channels" }],
      { cause: error },
    );
  }
  return parseOrThrow(NotifyChannelsSchema, json, "environment variable NOTIFY_CHANNELS");
}
