import type { FrozenTool } from "../goal/frozen-tools";

/** One server's tools, frozen for a goal, or why they could not be listed. */
export type McpServerTools =
  | { readonly tools: readonly FrozenTool[] }
  | { readonly error: { readonly name: string; readonly message: string } };

/** The deployment's MCP servers, as goal intake reads them when a goal starts. */
export interface McpCatalog {
  /** The configured servers' names (`tools.mcp[].name`). */
  readonly servers: readonly string[];
  /** Lists the named servers' tools (allow lists and risk overrides applied), each frozen. */
  list(servers: readonly string[]): Promise<Readonly<Record<string, McpServerTools>>>;
}
