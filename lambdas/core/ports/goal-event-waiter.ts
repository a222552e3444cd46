/** One wait of a reader that found no event after `after` and may wait until `until`. */
export interface GoalEventWait {
  readonly goalId: string;
  /** The last seq the reader has; the wait is over once the goal may have a later one. */
  readonly after: number;
  readonly until: Date;
  /** How many times this reader waited before (0 first): a polling waiter backs off with it. */
  readonly round: number;
  /** Ends the wait early (the client went away). */
  readonly signal?: AbortSignal;
}

/**
 * Waits until a goal may have new events, or until the wait's end: what the long poll and the event
 * stream do between two reads of the event log. It never answers with events (the reader reads the
 * log again, the one source of truth) and never throws: at worst it returns early.
 */
export interface GoalEventWaiter {
  wait(request: GoalEventWait): Promise<void>;
}
