/**
 * event-waiters/: how the long poll and the event stream wait for a goal's next event: polling the
 * event log, or the local stack's change feed, chosen from the environment.
 * Not here: reading the events themselves (dynamodb/dynamodb-event-log.ts).
 *
 * Handlers and other files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./change-feed-event-waiter";
export * from "./goal-event-waiter-from-env";
export * from "./polling-event-waiter";
