import { SPAWN_SUBGOAL_TOOL, SubgoalRequestSchema } from "../core/goal/subgoals";
import type { BuiltInTool } from "./built-in-tool";
import { ToolCallError } from "./tool-call-error";

/**
 * `spawn_subgoal` (DESIGN §6): its definition for the model and the gate. The loop runs its calls
 * itself, not this runner: AwaitSubgoals starts the child and parks the goal until the child ends,
 * and Act answers the call with the child's outcome. Its own side effects happen inside the child,
 * under the child's gates and within the budget carved from this goal's: no approval gate of its
 * own (a goal can still require one with `approval.requireFor`).
 */
export const spawnSubgoalTool: BuiltInTool<typeof SubgoalRequestSchema> = {
  name: SPAWN_SUBGOAL_TOOL,
  description:
    "Start a sub-goal with its own contract (objective, success checks, optional pattern, limits, tools, models) and wait until it ends. " +
    "Its result is the sub-goal's outcome: status, satisfied checks and references to its evidence. " +
    "Its limits come out of this goal's remaining budget and can never exceed it; its tools are a subset of this goal's.",
  inputSchema: SubgoalRequestSchema,
  risk: "reversible",
  async execute() {
    // Reached only through a runner used without the loop (a call the loop does not run itself).
    throw new ToolCallError(
      "SubgoalNotStarted",
      "spawn_subgoal is run by the goal's loop, which starts the sub-goal and waits for it; this call was not",
    );
  },
};
