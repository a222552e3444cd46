import type { GoalEvent } from "../../lambdas/core/goal/goal-event";
import type { GoalSnapshot } from "../../lambdas/core/goal/goal-record";
import type {
  ApprovalView,
  GoalDetails,
  GoalRuns,
  RunHistoryPage,
} from "../../lambdas/handlers/api/contract/response-schemas";
import { GoalLoopsApiError } from "../../lib/client/client-errors";
import { GoalLoopsClient } from "../../lib/client/goal-loops-client";
import { authorizedFetch } from "./auth";

export type { ApprovalView, GoalDetails, GoalEvent, GoalSnapshot };
export type RunItem = GoalRuns["items"][number];
export type HistoryEvent = RunHistoryPage["events"][number];
export { GoalLoopsApiError };

/**
 * The package's typed client, as every other caller of the API uses it. Every call goes to the
 * page's own origin: the local stack serves the console beside its API, and `goal-loops console`
 * proxies the API (signing it). No AWS credential is ever in the page; a signed-in person's bearer
 * token (auth.ts) goes with each call.
 */
export const client = new GoalLoopsClient(location.origin, { fetch: authorizedFetch });

/** How the views say a failure: the API's status, code and message (and each bad field), or the error. */
export function failureText(failure: unknown): string {
  if (!(failure instanceof GoalLoopsApiError))
    return failure instanceof Error ? failure.message : String(failure);
  const issues = (failure.body.issues ?? []).map((issue) => ` (${issue.path}: ${issue.message})`).join("");
  return `${failure.status} ${failure.code}: ${failure.body.message}${issues}`;
}

/**
 * Follows a goal's events from `after` on with the client's `watch` (the event stream, resumed from
 * the last id; the long poll when the stack has every stream it allows open): `onEvent` gets each
 * event as it is committed. Ends when the goal is final and every event was seen, when the API
 * refuses (the goal is gone), or when the returned function is called; a broken connection is
 * retried after a second.
 */
export function followEvents(goalId: string, after: number, onEvent: (event: GoalEvent) => void): () => void {
  const stop = new AbortController();
  void (async () => {
    let last = after;
    while (!stop.signal.aborted) {
      try {
        for await (const event of client.watch(goalId, { after: last, signal: stop.signal })) {
          last = event.seq;
          onEvent(event);
        }
        return;
      } catch (failure) {
        if (stop.signal.aborted || failure instanceof GoalLoopsApiError) return;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  })();
  return () => stop.abort();
}
