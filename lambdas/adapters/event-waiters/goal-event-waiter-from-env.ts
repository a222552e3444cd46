import type { GoalEventWaiter } from "../../core/ports/goal-event-waiter";
import { changeFeedEventWaiter } from "./change-feed-event-waiter";
import { pollingEventWaiter } from "./polling-event-waiter";

/**
 * The waiter of the long poll and the event stream: the local runtime's change feed when it sets
 * `GOAL_CHANGE_FEED_URL` (only it does), else polling the goal table with backoff, as deployed.
 */
export function goalEventWaiterFromEnv(env: Record<string, string | undefined>): GoalEventWaiter {
  const feedUrl = env.GOAL_CHANGE_FEED_URL;
  return feedUrl === undefined || feedUrl === "" ? pollingEventWaiter() : changeFeedEventWaiter(feedUrl);
}
