/**
 * scheduler/: the local EventBridge Scheduler: one-time schedules (the goals' deadlines) kept
 * across restarts and fired onto the bus.
 * Not here: the bus itself (eventbridge/).
 */
export * from "./scheduler-endpoint";
