/**
 * patterns/plan-execute/: Plan-and-Execute's own steps: Plan (the plan call, merging and validating
 * plans, the plan gate), Execute (one ready step per turn), Observe (classifying a step's outcome),
 * and replanning (triggers, strategies, cooldown, maxReplans).
 * Not here: the plan's shape as the goal record keeps it (goal/plan.ts), the step-decision gate and
 * Act's off-plan check (loop/), which the skeleton needs too.
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./classify";
export * from "./execute";
export * from "./execute-prompt";
export * from "./observe";
export * from "./observe-changes";
export * from "./plan";
export * from "./plan-changes";
export * from "./plan-execute-deps";
export * from "./plan-gate";
export * from "./plan-prompt";
export * from "./plan-schema";
export * from "./plan-state";
export * from "./replan";
