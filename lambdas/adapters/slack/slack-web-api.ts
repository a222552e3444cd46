import { GoalLoopsError } from "../../core/goal/errors";

/**
 * Slack's `chat.postMessage`, the one Web API method goal-loops calls, over `fetch`. The
 * `@slack/web-api` WebClient did the same with about 41 KB in every acting bundle and
 * RequestApproval's; this is the part of it goal-loops used: a JSON POST with the bot token as a
 * Bearer header, Slack's `ok: false` answer as an error naming its code, and a few retries.
 */

/** The arguments goal-loops posts: a channel, the fallback text, and Block Kit blocks for approvals. */
export interface SlackPostMessageArguments {
  readonly token: string;
  readonly channel: string;
  readonly text: string;
  readonly blocks?: readonly unknown[];
}

/**
 * What a Slack client needs to offer goal-loops: `chat.postMessage`, answering the message's `ts`.
 * The WebClient of `@slack/web-api` has this shape too.
 */
export interface SlackChatClient {
  readonly chat: {
    postMessage(args: SlackPostMessageArguments): Promise<{ readonly ts?: string | undefined }>;
  };
}

/** Slack answered `ok: false` (`code`: `channel_not_found`, `invalid_auth` …) or an HTTP error. */
export class SlackApiError extends GoalLoopsError {
  override readonly name = "SlackApiError";
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

export interface SlackWebApiOptions {
  /** The Web API's base URL, ending in `/api/`. @default https://slack.com/api/ */
  readonly slackApiUrl?: string;
  /** Retries of a network error, an HTTP 429 or a 5xx answer. @default 0 */
  readonly retries?: number;
  /** A 429 is an error at once instead of waiting its `Retry-After` (up to 10 s). @default false */
  readonly rejectRateLimitedCalls?: boolean;
  /** Per attempt. @default 10_000 */
  readonly timeoutMs?: number;
  /** @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
}

const DEFAULT_SLACK_API_URL = "https://slack.com/api/";
const MAX_RETRY_AFTER_MS = 10_000;

interface SlackAnswer {
  readonly ok?: unknown;
  readonly ts?: unknown;
  readonly error?: unknown;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A Slack client for `chat.postMessage` alone, with the options the two callers set on WebClient. */
export function slackWebApi(options: SlackWebApiOptions = {}): SlackChatClient {
  const fetch = options.fetch ?? globalThis.fetch;
  const url = new URL("chat.postMessage", options.slackApiUrl ?? DEFAULT_SLACK_API_URL).toString();
  const retries = options.retries ?? 0;
  const timeoutMs = options.timeoutMs ?? 10_000;

  /** One POST: Slack's answer, or how long to wait before trying again. */
  async function attempt(
    args: SlackPostMessageArguments,
  ): Promise<{ ts?: string } | { retryAfterMs: number }> {
    const { token, ...body } = args;
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8", authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (response.status === 429 && !options.rejectRateLimitedCalls) {
      await response.body?.cancel();
      const seconds = Number(response.headers.get("retry-after") ?? "1");
      return { retryAfterMs: Math.min(MAX_RETRY_AFTER_MS, Number.isFinite(seconds) ? seconds * 1000 : 1000) };
    }
    if (response.status >= 500) {
      await response.body?.cancel();
      return { retryAfterMs: 1000 };
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new SlackApiError(`Slack answered HTTP ${response.status}`, `http_${response.status}`);
    }
    const answer = (await response.json()) as SlackAnswer;
    if (answer.ok !== true) {
      const code = typeof answer.error === "string" ? answer.error : "unknown_error";
      throw new SlackApiError(`An API error occurred: ${code}`, code);
    }
    return typeof answer.ts === "string" ? { ts: answer.ts } : {};
  }

  return {
    chat: {
      async postMessage(args) {
        for (let tries = 0; ; tries += 1) {
          const outcome = await attempt(args).catch((error: unknown) => {
            // A network error or timeout: the message may have arrived, as with WebClient's retries.
            if (error instanceof SlackApiError || tries >= retries) throw error;
            return { retryAfterMs: 1000 };
          });
          if (!("retryAfterMs" in outcome)) return outcome;
          if (tries >= retries) {
            throw new SlackApiError("Slack is rate limiting or unavailable; no retry left", "unavailable");
          }
          await pause(outcome.retryAfterMs);
        }
      },
    },
  };
}
