import type { GoalEvent } from "../../core/goal/goal-event";
import type { GoalEventWaiter } from "../../core/ports/goal-event-waiter";
import type { GoalStore } from "../../core/ports/goal-store";

export interface EventReadPorts {
  readonly store: Pick<GoalStore, "listEvents">;
  readonly waiter: GoalEventWaiter;
  readonly now: () => Date;
}

export interface EventRead {
  readonly goalId: string;
  readonly after: number;
  readonly limit?: number;
  /** Until when to wait for a first event; a past date reads once. */
  readonly until: Date;
  readonly signal?: AbortSignal;
}

/**
 * The events after `after`, as soon as there is one: reads the log, and while it has nothing new
 * waits on the waiter and reads again, until `until`. The log is the only source of what is
 * returned; the waiter only says when reading again is worth it.
 */
export async function waitForEvents(
  ports: EventReadPorts,
  read: EventRead,
): Promise<{ items: readonly GoalEvent[]; nextSeq: number }> {
  const query = { after: read.after, ...(read.limit === undefined ? {} : { limit: read.limit }) };
  for (let round = 0; ; round++) {
    const page = await ports.store.listEvents(read.goalId, query);
    if (page.items.length > 0 || ports.now() >= read.until || read.signal?.aborted) return page;
    await ports.waiter.wait({
      goalId: read.goalId,
      after: read.after,
      until: read.until,
      round,
      ...(read.signal ? { signal: read.signal } : {}),
    });
  }
}
