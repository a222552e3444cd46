/**
 * limits/: the deployment's shared limits, kept in the goal table so every function sees the same:
 * the capacity governor's lanes and rate per model (dynamodb-capacity-store.ts) and the leases of
 * the open event streams (dynamodb-stream-leases.ts). Every write is conditional or commutative.
 * Not here: the arithmetic of the limits (lambdas/core/models/capacity) or what a caller does when
 * one is reached (the steps wait, the event stream answers 429).
 *
 * Handlers and other files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./dynamodb-capacity-store";
export * from "./dynamodb-stream-leases";
