/**
 * loop/: the skeleton every pattern shares (DESIGN §2): LoadGoal, Act (runs an acting turn's tool
 * calls, whichever pattern made it, and refuses a call off the plan step's tool), step results
 * for the state machine's NextAction, ContinueAsNew, re-attaching a goal to a new run,
 * RecordFailure, and the settings and ports a step gets. ./gates asks humans, ./revisions applies their revisions (and runs
 * compensation sagas), ./subgoals starts sub-goals and waits for them, ./verify turns results into evidence.
 * Not here: a pattern's own steps or prompts (patterns/), and nothing here imports a pattern.
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */

export * from "./act";
export * from "./acting-role";
export * from "./capacity-wait";
export * from "./continue-as-new";
export * from "./gates";
export * from "./load-goal";
export * from "./loop-deps";
export * from "./off-plan-call";
export * from "./reattach-goal";
export * from "./record-failure";
export * from "./revisions";
export * from "./run-ids";
export * from "./step-result";
export * from "./subgoals";
export * from "./update-goal";
export * from "./verify";
