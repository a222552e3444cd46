import { GoalLoopsError, ValidationError, type ValidationIssue } from "../goal/errors";
import { type FrozenTool, isWholeServerGrant, mcpServerOf } from "../goal/frozen-tools";
import type { McpCatalog } from "../ports/mcp-catalog";

/**
 * An MCP server a GoalSpec grants tools of could not be listed when the goal started (unreachable,
 * timed out, refused the credentials). The goal is not created: the API answers 502 naming the
 * server, and the same POST can be sent again once it is back.
 */
export class McpServerUnavailableError extends GoalLoopsError {
  override readonly name = "McpServerUnavailableError";

  constructor(
    readonly server: string,
    readonly reason: { readonly name: string; readonly message: string },
  ) {
    super(`MCP server '${server}' could not list its tools: ${reason.name}: ${reason.message}`);
  }
}

/** Whether a granted name is one of the deployment's MCP servers' (`<server>__<tool>` or `<server>__*`). */
export function isMcpGrant(name: string, catalog: Pick<McpCatalog, "servers"> | undefined): boolean {
  const server = mcpServerOf(name);
  return server !== undefined && (catalog?.servers.includes(server) ?? false);
}

/**
 * The MCP tools a GoalSpec grants, listed from their servers now and frozen into the goal: each
 * `<server>__<tool>` names one tool, `<server>__*` every tool the server offers. A tool the
 * server does not offer (or its allow list keeps out) is a ValidationError naming `tools.<index>`
 * and what the server does offer; a server that cannot be listed is McpServerUnavailableError.
 */
export async function freezeGrantedMcpTools(
  granted: readonly string[],
  catalog: McpCatalog | undefined,
): Promise<FrozenTool[]> {
  const grants = granted.flatMap((name, index) => (isMcpGrant(name, catalog) ? [{ name, index }] : []));
  if (grants.length === 0 || catalog === undefined) return [];
  const servers = [...new Set(grants.map(({ name }) => mcpServerOf(name) ?? ""))];
  const listing = await catalog.list(servers);

  const frozen = new Map<string, FrozenTool>();
  const issues: ValidationIssue[] = [];
  for (const { name, index } of grants) {
    const server = mcpServerOf(name) ?? "";
    const tools = listing[server];
    if (tools === undefined)
      throw new McpServerUnavailableError(server, { name: "NoAnswer", message: "not listed" });
    if ("error" in tools) throw new McpServerUnavailableError(server, tools.error);
    const matching = isWholeServerGrant(name)
      ? tools.tools
      : tools.tools.filter((tool) => tool.name === name);
    if (matching.length === 0) {
      const offered = tools.tools.map((tool) => tool.name).join(", ") || "none";
      issues.push({
        path: `tools.${index}`,
        message: `MCP server '${server}' offers no tool '${name}'; it offers: ${offered}`,
      });
    }
    for (const tool of matching) frozen.set(tool.name, tool);
  }
  if (issues.length > 0) {
    throw new ValidationError(
      `Invalid GoalSpec: ${issues.map((issue) => `${issue.path} ${issue.message}`).join("; ")}`,
      issues,
    );
  }
  return [...frozen.values()].sort((a, b) => a.name.localeCompare(b.name));
}
