/**
 * lambdas/core: the pure domain and loop logic. No `@aws-sdk` import, no I/O of its own: every
 * effect goes through a port (./ports) that lambdas/adapters implements. One folder per concept,
 * from the bottom layer up:
 * - goal/      the contract and its record: spec, record, status, lifecycle, invariants, limits,
 *              revisions, the plan and lessons as the record keeps them; goal/evidence/ is evidence
 *              and progress.
 * - ports/     the interfaces the core reaches the world through (store, model, tools, clock …).
 * - tenants/   teams in one deployment: who belongs to which tenant, each tenant's limits, its
 *              concurrent-goal slots and start pace, its daily model budget.
 * - models/    roles, tiers, prices, the allow-list, the checkpointed model call; models/context/
 *              packs prompts.
 * - human/     what humans send and receive: the human-input events, approval decisions, the /goal
 *              directive, Slack and email.
 * - loop/      the skeleton all three patterns share: load, act, gates, revisions, verify,
 *              continue-as-new, failure.
 * - patterns/  what one pattern does: react/, plan-execute/, reflexion/ (never importing each other).
 * - intake/    a submitted GoalSpec becoming a running goal, its pattern chosen.
 * - fork/      rerunning from any step: a fork started where its source stood, a replay, the timeline.
 * - operations/ what the deployment measures of itself for operators: owned secrets' ages.
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * as fork from "./fork";
export * as goal from "./goal";
export * as human from "./human";
export * as intake from "./intake";
export * as loop from "./loop";
export * as models from "./models";
export * as operations from "./operations";
export * as patterns from "./patterns";
export * as ports from "./ports";
export * as tenants from "./tenants";
