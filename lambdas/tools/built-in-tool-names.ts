/**
 * The built-in tools' names, without their code: what the goals API checks a GoalSpec's tools[]
 * against (with the user's tools) and what the configuration keeps user tools from taking.
 */
export const BUILT_IN_TOOL_NAMES: readonly string[] = [
  "http_request",
  "notify",
  "spawn_subgoal",
  "workspace_list",
  "workspace_read",
  "workspace_write",
];
