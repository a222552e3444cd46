/**
 * The tools a goal may use when its GoalSpec lists no `tools`: the workspace tools, which change
 * nothing outside the goal. `notify` and `http_request` reach the world, so a goal must name them.
 * A file of its own, apart from the registry: a function that only needs the names (a step's
 * settings) then bundles none of the tools.
 */
export const DEFAULT_TOOL_NAMES: readonly string[] = ["workspace_list", "workspace_read", "workspace_write"];

/** The tools granted to a goal: its GoalSpec `tools` when given, else DEFAULT_TOOL_NAMES. */
export function grantedToolNames(specTools: readonly string[] | undefined): readonly string[] {
  return specTools ?? DEFAULT_TOOL_NAMES;
}
