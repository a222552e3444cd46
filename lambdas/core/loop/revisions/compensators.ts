/**
 * Which tools undo their calls, and how (DESIGN §5, §6). Every tool declares a compensator or
 * none: `workspace_write` restores the content its write replaced, or deletes the file it created;
 * a Lambda tool's `compensate` function undoes its calls; a call that only read has nothing to undo.
 * Every other tool has none (`notify`, `http_request`, `spawn_subgoal`, MCP tools, Lambda tools
 * without `compensate`): a saga names their calls as not compensable, for a human, and goes on.
 */

/** The built-in tool whose calls the workspace can undo. */
export const WORKSPACE_WRITE_TOOL = "workspace_write";

/** What a compensator does, by built-in tool, as `goal-loops tools` shows it. */
export const BUILT_IN_COMPENSATORS: Readonly<Record<string, string>> = {
  [WORKSPACE_WRITE_TOOL]: "restores the content the write replaced, or deletes the file it created",
  workspace_read: "nothing to undo (reads)",
  workspace_list: "nothing to undo (reads)",
  http_request: "none: a GET only reads; a request that changed something cannot be taken back",
  notify: "none: a message sent cannot be unsent",
  spawn_subgoal: "none: a sub-goal's own steps are its own goal's business",
};

/** How one call would be undone: by the workspace, by the tool's compensate function, or not at all. */
export type CompensatorKind = "workspace" | "function" | "nothing_to_undo" | "none";

/**
 * The compensator of a successful call of `tool`: `reads` (the call's risk was `read`) means there
 * is nothing to undo; `hasFunction` says whether the tool has a `compensate` function.
 */
export function compensatorOf(tool: string, reads: boolean, hasFunction: boolean): CompensatorKind {
  if (tool === WORKSPACE_WRITE_TOOL) return "workspace";
  if (hasFunction) return "function";
  if (reads) return "nothing_to_undo";
  return "none";
}
