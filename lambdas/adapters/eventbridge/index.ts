/**
 * eventbridge/: putting events on the stack's bus: every human input (eventbridge-publisher.ts) and
 * the Goal Ended signal a commit that ends a goal sends (goal-ended-signals.ts).
 * Not here: matching an event to a waiting goal (lambdas/core/human, the resume handler).
 *
 * Handlers and other files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./eventbridge-publisher";
export * from "./goal-ended-signals";
