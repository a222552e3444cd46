/**
 * loop/verify/: the verify step every pattern runs after acting: reads back what the tools
 * recorded, judges `model_judge` checks with the `judge` role, and records evidence and progress,
 * and the state each counted step leaves (step-state.ts: what a fork starts from).
 * Not here: the rules of evidence and progress themselves (goal/evidence).
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./judge";
export * from "./step-state";
export * from "./verify-step";
