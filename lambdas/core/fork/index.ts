/**
 * fork/: rerunning a goal from any step (DESIGN §6 `POST /goals/{goalId}/fork`, `/replay`, `GET
 * /goals/{goalId}/steps`). A fork is a new goal that starts where its source stood after a step:
 * the step state the source's verify step recorded (loop/verify/step-state.ts), the step log,
 * checkpoints, fingerprints and workspace files up to it copied into the fork's own partition, the
 * source's usage to that step kept as inherited, a revision queued on top, models and limits
 * changed, approvals decided in advance. A replay rebuilds each step from the checkpoints and the
 * step log alone (no model call, no tool) and names the first step where they and the recorded
 * states disagree. The timeline is what a human picks a step from.
 * Not here: recording the states (loop/verify/step-state.ts), deciding a fork's approvals in
 * advance (loop/gates/request-approval.ts), starting the fork's run or answering HTTP
 * (lambdas/handlers/api).
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./copy-history";
export * from "./fork-goal";
export * from "./fork-point";
export * from "./fork-request";
export * from "./replay";
export * from "./step-timeline";
