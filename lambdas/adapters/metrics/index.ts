/**
 * metrics/: the goal metrics a store commit emits (goal-metrics.ts), published as CloudWatch EMF
 * through Powertools (powertools-goal-metrics.ts), and the store wrapper that emits them
 * (metered-goal-store.ts).
 * Not here: the dashboard and alarms built on them (lib/constructs/operations.ts).
 *
 * Handlers and other files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./goal-metrics";
export * from "./metered-goal-store";
export * from "./powertools-goal-metrics";
