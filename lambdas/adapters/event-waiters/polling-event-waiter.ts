import { setTimeout as delay } from "node:timers/promises";
import type { GoalEventWait, GoalEventWaiter } from "../../core/ports/goal-event-waiter";

export interface PollingBackoff {
  /** The first wait, in ms. */
  readonly firstMs: number;
  /** Each later wait is the one before times this. */
  readonly factor: number;
  /** No wait is longer. */
  readonly maxMs: number;
}

/**
 * Deployed, nothing tells a function that a goal got new events (the goal table has no stream
 * consumer): the reader polls the log, soon after it started and then less and less often, so a
 * quiet goal costs a read per second at most and an active one is seen within a few hundred ms.
 */
export const DEFAULT_BACKOFF: PollingBackoff = { firstMs: 100, factor: 1.5, maxMs: 1000 };

/** The wait of round `round`: `firstMs × factor^round`, at most `maxMs`. */
export function backoffMs(backoff: PollingBackoff, round: number): number {
  return Math.min(backoff.maxMs, backoff.firstMs * backoff.factor ** Math.max(0, round));
}

/** A waiter that sleeps the round's backoff (never past `until`), then lets the reader look again. */
export function pollingEventWaiter(backoff: PollingBackoff = DEFAULT_BACKOFF): GoalEventWaiter {
  return {
    wait: async (request: GoalEventWait) => {
      const ms = Math.min(backoffMs(backoff, request.round), request.until.getTime() - Date.now());
      if (ms <= 0) return;
      await delay(ms, undefined, request.signal ? { signal: request.signal } : {}).catch(() => undefined);
    },
  };
}
