import type { SESv2Client } from "@aws-sdk/client-sesv2";
import { GoalLoopsError } from "../../core/goal/errors";
import type { NotifySender, NotifySendRequest } from "../../tools/built-in-tool";
import type { NotifyDestination } from "../../tools/notify-destinations";
import { type SecretSource, slackSecretsFromEnv } from "../secrets/slack-secrets";
import { loadOnce } from "../shared/load-once";
import { type SlackChatClient, slackWebApi } from "../slack/slack-web-api";

/** The provider did not take a `notify` message; the message says what it answered. */
export class NotifySendError extends GoalLoopsError {
  override readonly name = "NotifySendError";
}

/** How long one send may take before it is given up (and reported as maybe delivered). */
export const NOTIFY_SEND_TIMEOUT_MS = 10_000;

export interface NotifySendersOptions {
  /** `chat.postMessage` with the bot token. */
  readonly slack: { readonly client: () => Promise<SlackChatClient>; readonly botToken: SecretSource };
  /** SES v2 `SendEmail` from `from` (a verified identity); none configured refuses e-mail channels. */
  readonly email: { readonly client: () => Promise<SESv2Client>; readonly from: string | undefined };
  /** @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
  /** @default NOTIFY_SEND_TIMEOUT_MS */
  readonly timeoutMs?: number;
}

function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // undici reports network errors as `TypeError: fetch failed` with the reason (ECONNREFUSED …) in `cause`.
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
  return `${error.name}: ${error.message}${cause}`;
}

/**
 * The sender behind `notify` when it really sends. Nothing here retries: a send that failed after
 * the provider may have taken the message (a timeout, a reset connection) would arrive twice, so
 * every failure goes back to the model (and the ledger) once. That is why the Slack client has no
 * retries and the SES client one attempt.
 */
export function createNotifySender(options: NotifySendersOptions): NotifySender {
  const fetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? NOTIFY_SEND_TIMEOUT_MS;

  async function slack(destination: Extract<NotifyDestination, { type: "slack" }>, text: string) {
    const token = await options.slack.botToken();
    const client = await options.slack.client();
    try {
      const answer = await client.chat.postMessage({ token, channel: destination.channel, text });
      return { receipt: answer.ts ?? "unknown" };
    } catch (error) {
      throw new NotifySendError(`Slack chat.postMessage to ${destination.channel}: ${reason(error)}`, {
        cause: error,
      });
    }
  }

  async function email(
    destination: Extract<NotifyDestination, { type: "email" }>,
    request: NotifySendRequest,
  ) {
    const from = options.email.from;
    if (from === undefined || from === "") {
      throw new NotifySendError("no SES sender identity is configured (notify.emailSender)");
    }
    const ses = await options.email.client();
    const { SendEmailCommand } = await import("@aws-sdk/client-sesv2");
    const utf8 = (Data: string) => ({ Data, Charset: "UTF-8" });
    try {
      const answer = await ses.send(
        new SendEmailCommand({
          FromEmailAddress: from,
          Destination: { ToAddresses: [...destination.to] },
          Content: {
            Simple: {
              Subject: utf8(destination.subject),
              Body: { Text: utf8(`${request.message}\n\n-- goal-loops, goal ${request.goalId}`) },
            },
          },
        }),
        { abortSignal: AbortSignal.timeout(timeoutMs) },
      );
      return { receipt: answer.MessageId ?? "unknown" };
    } catch (error) {
      throw new NotifySendError(`SES SendEmail to ${destination.to.join(", ")}: ${reason(error)}`, {
        cause: error,
      });
    }
  }

  async function webhook(
    destination: Extract<NotifyDestination, { type: "webhook" }>,
    request: NotifySendRequest,
  ) {
    const host = new URL(destination.url).host;
    let response: Response;
    try {
      response = await fetch(destination.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          // The receiver can drop a repeat: the key is the call's, the same on every attempt.
          "Idempotency-Key": request.idempotencyKey,
        },
        body: JSON.stringify({
          channel: request.channel,
          message: request.message,
          goalId: request.goalId,
          idempotencyKey: request.idempotencyKey,
        }),
        // A redirect could lead off the allow-listed host: it counts as a failure.
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const what =
        error instanceof Error && error.name === "TimeoutError"
          ? `no answer within ${timeoutMs} ms (the message may have arrived)`
          : reason(error);
      throw new NotifySendError(`webhook POST to ${host}: ${what}`, { cause: error });
    }
    await response.body?.cancel();
    if (response.status < 200 || response.status > 299) {
      throw new NotifySendError(`webhook POST to ${host} answered HTTP ${response.status}`);
    }
    return { receipt: `HTTP ${response.status}` };
  }

  return async (request) => {
    const { destination } = request;
    switch (destination.type) {
      case "slack":
        return slack(destination, request.message);
      case "email":
        return email(destination, request);
      case "webhook":
        return webhook(destination, request);
    }
  };
}

/**
 * The sender an acting function builds at module scope: the Slack bot token from
 * `SLACK_BOT_TOKEN_ARN` (Secrets Manager; `SLACK_BOT_TOKEN` inline locally), the Slack API at
 * `SLACK_API_URL` when set (a local fake; default slack.com), SES from `NOTIFY_EMAIL_FROM` (its
 * endpoint follows the SDK's `AWS_ENDPOINT_URL_SESV2`). The clients load on first use.
 */
export function notifySenderFromEnv(env: Readonly<Record<string, string | undefined>>): NotifySender {
  const slackApiUrl = env.SLACK_API_URL;
  return createNotifySender({
    slack: {
      botToken: slackSecretsFromEnv(env).botToken,
      client: async () =>
        slackWebApi({
          ...(slackApiUrl ? { slackApiUrl } : {}),
          retries: 0,
          rejectRateLimitedCalls: true,
          timeoutMs: NOTIFY_SEND_TIMEOUT_MS,
        }),
    },
    email: {
      from: env.NOTIFY_EMAIL_FROM,
      client: loadOnce(async () => {
        const { SESv2Client } = await import("@aws-sdk/client-sesv2");
        return new SESv2Client({ region: env.AWS_REGION, maxAttempts: 1 });
      }),
    },
  });
}
