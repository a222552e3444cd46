/**
 * eventbridge/: the local EventBridge service: the PutEvents endpoint, the event-pattern matcher,
 * and the rule targets' input transformation.
 * Not here: the Scheduler's schedules, which put their events on the bus through this endpoint
 * (scheduler/).
 */
export * from "./event-pattern";
export * from "./event-target-input";
export * from "./eventbridge-endpoint";
