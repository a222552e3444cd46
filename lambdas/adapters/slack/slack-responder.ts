import { GoalLoopsError } from "../../core/goal/errors";
import { isSlackResponseUrl } from "../../core/human/slack/response-url";

/**
 * Replaces the message an interaction came from, through the interaction's `response_url`: Slack's
 * documented way to update a message after a block action (the HTTP answer's body is the fallback).
 */
export interface SlackResponder {
  respond(responseUrl: string, message: Record<string, unknown>): Promise<void>;
}

export class SlackResponseError extends GoalLoopsError {
  override readonly name = "SlackResponseError";
}

/**
 * Posts to `response_url` with a deadline, so the interaction is still acknowledged within Slack's
 * 3 seconds when Slack is slow: a post cut off by the deadline fails here and is logged by the caller.
 */
export function fetchSlackResponder(options: { readonly timeoutMs: number }): SlackResponder {
  return {
    async respond(responseUrl, message) {
      // The door refuses a foreign response_url first; this keeps any other caller to Slack's hosts too.
      if (!isSlackResponseUrl(responseUrl)) {
        throw new SlackResponseError(
          "Not a Slack response URL: only https on Slack's hooks hosts is posted to",
        );
      }
      const url = new URL(responseUrl);
      const answer = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json; charset=utf-8" },
        body: JSON.stringify(message),
        signal: AbortSignal.timeout(options.timeoutMs),
      }).catch((error: unknown) => {
        throw new SlackResponseError("Posting to the response URL failed", { cause: error });
      });
      if (!answer.ok) throw new SlackResponseError(`The response URL answered ${answer.status}`);
    },
  };
}
