/**
 * models/: everything about calling a model that is not a loop's decision: the roles, the tier
 * of each role and the model it gets (model-tiers.json), prices and cost (model-prices.json), the
 * deployment's allow-list, each model family's thinking settings and each role's default
 * (model-thinking.ts), reading a model's answer, and the checkpointed call that never pays twice
 * for the same (goal, run, iteration, role). ./context packs the prompts; ./capacity paces the calls
 * within the models' quotas.
 * Not here: what a prompt asks (each step's prompt sits beside its step, in loop/ or patterns/), or
 * any Bedrock SDK code (lambdas/adapters).
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */

export * from "./capacity";
export * from "./context";
export * from "./model-allow-list";
export * from "./model-answer";
export * from "./model-call";
export * from "./model-prices";
export * from "./model-roles";
export * from "./model-thinking";
export * from "./model-tiers";
