/**
 * scheduler/: EventBridge Scheduler's one-time schedules, one per goal deadline, behind the
 * deadline-schedule port.
 * Not here: what a deadline does (lambdas/core/loop/gates/deadline.ts).
 *
 * Handlers and other files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./scheduler-deadlines";
