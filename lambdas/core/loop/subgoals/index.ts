/**
 * loop/subgoals/: sub-goals as every pattern's skeleton runs them (DESIGN §1, §6). A turn's
 * `spawn_subgoal` calls (or a plan step's `subgoal`) become children with contracts of their own
 * (limits carved from the parent's budget, tools a subset of its tools); AwaitSubgoals parks the
 * parent on a task token until they end; a `Goal Ended` event on the bus wakes it, adds their usage
 * to its own and cancels the children of a parent that ended; Act answers each call with its
 * child's outcome.
 * Not here: the shapes the record keeps (goal/subgoals.ts) and the tool's definition (lambdas/tools).
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./await-subgoals";
export * from "./child-ended";
export * from "./goal-ended";
export * from "./plan-children";
export * from "./spawn-calls";
export * from "./subgoal-outcome";
