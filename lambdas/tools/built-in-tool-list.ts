import type { BuiltInTool } from "./built-in-tool";
import { httpRequestTool } from "./http-request";
import { notifyTool } from "./notify";
import { spawnSubgoalTool } from "./spawn-subgoal";
import { workspaceListTool } from "./workspace-list";
import { workspaceReadTool } from "./workspace-read";
import { workspaceWriteTool } from "./workspace-write";

/**
 * Every built-in tool, in the order `goal-loops tools` lists them and `npm run tool-schemas` writes
 * their input schemas. The registry (tool-registry.ts) registers each with its generated schema;
 * it does not read this list, since it must load without running the converter.
 */
export const BUILT_IN_TOOL_LIST: readonly BuiltInTool[] = [
  httpRequestTool,
  notifyTool,
  spawnSubgoalTool,
  workspaceListTool,
  workspaceReadTool,
  workspaceWriteTool,
];
