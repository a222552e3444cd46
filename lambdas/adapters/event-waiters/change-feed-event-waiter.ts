import type { GoalEventWait, GoalEventWaiter } from "../../core/ports/goal-event-waiter";
import { pollingEventWaiter } from "./polling-event-waiter";

/**
 * The local runtime's waiter (`GOAL_CHANGE_FEED_URL`): the runtime sees every write to its
 * DynamoDB and answers a held request as soon as the goal has an event after `after`, so a reader
 * wakes within milliseconds without polling. If the feed cannot be reached the wait falls back to
 * polling, so a reader never fails for it.
 */
export function changeFeedEventWaiter(feedUrl: string): GoalEventWaiter {
  const fallback = pollingEventWaiter();
  return {
    wait: async (request: GoalEventWait) => {
      const timeoutMs = request.until.getTime() - Date.now();
      if (timeoutMs <= 0) return;
      const url = new URL("changes", feedUrl.endsWith("/") ? feedUrl : `${feedUrl}/`);
      url.searchParams.set("goalId", request.goalId);
      url.searchParams.set("after", String(request.after));
      url.searchParams.set("timeoutMs", String(Math.ceil(timeoutMs)));
      const signals = [AbortSignal.timeout(timeoutMs + 1000), ...(request.signal ? [request.signal] : [])];
      try {
        const response = await fetch(url, { signal: AbortSignal.any(signals) });
        await response.arrayBuffer();
        if (!response.ok) await fallback.wait(request);
      } catch {
        if (!request.signal?.aborted) await fallback.wait(request);
      }
    },
  };
}
