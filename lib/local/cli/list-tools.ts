import { McpConnections } from "../../../lambdas/adapters/mcp/mcp-connections";
import { BUILT_IN_COMPENSATORS } from "../../../lambdas/core/loop/revisions/compensators";
import { BUILT_IN_TOOL_LIST } from "../../../lambdas/tools/built-in-tool-list";
import type { McpListAnswer } from "../../../lambdas/tools/mcp-gateway-contract";
import { createMcpGateway } from "../../../lambdas/tools/mcp-gateway-service";
import type { McpServerEntry } from "../../../lambdas/tools/mcp-servers";
import { toolSpecs } from "../../../lambdas/tools/tool-registry";
import type { GoalLoopsConfig } from "../../config/goal-loops-config";
import { mcpServerEntry } from "../../config/mcp-servers-config";

/** One tool a configuration yields, as `goal-loops tools` shows it. */
export interface ToolListing {
  readonly name: string;
  /** `built-in`, `lambda entry <file>`, `lambda <arn>` or `mcp <server> <url>`. */
  readonly source: string;
  /** The gate: `read` runs at once, `reversible` runs and is undone on a revision, `irreversible` waits for an approval. */
  readonly risk: string;
  /** Why the tool has that risk. */
  readonly why: string;
  /** What undoes a call in a compensation saga, or `none` (the saga names such calls for a human). */
  readonly compensator: string;
  readonly inputSchema: Record<string, unknown>;
}

/** What listing the configuration's MCP servers found: their tools, and the servers that failed. */
export interface McpListing {
  readonly tools: ToolListing[];
  /** One line per server that could not be listed, or per tool left out, saying why. */
  readonly problems: string[];
}

/**
 * Every tool a configuration yields, built-ins first, then its Lambda tools, then its MCP servers'
 * (listed from the servers now, as a starting goal would), each with its risk and why: what a
 * deployer checks before `cdk deploy`.
 */
export async function listTools(
  config: GoalLoopsConfig,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ tools: ToolListing[]; problems: string[] }> {
  const mcp = await listMcpTools(config.tools.mcp.map(mcpServerEntry), env);
  return { tools: [...listConfiguredTools(config), ...mcp.tools], problems: mcp.problems };
}

/**
 * The tools of MCP servers, listed and gated exactly as the McpGateway function does for a
 * starting goal; credentials from the variables `auth.env` names (the local stack's way).
 */
export async function listMcpTools(
  servers: readonly McpServerEntry[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<McpListing> {
  if (servers.length === 0) return { tools: [], problems: [] };
  const connections = new McpConnections(async (server) =>
    server.auth?.env === undefined ? undefined : env[server.auth.env],
  );
  try {
    const gateway = createMcpGateway(servers, connections);
    const answer = (await gateway.handle({
      action: "list",
      servers: servers.map((server) => server.name),
    })) as McpListAnswer;
    const tools: ToolListing[] = [];
    const problems: string[] = [];
    for (const server of servers) {
      const listing = answer.servers[server.name];
      if (!listing || "error" in listing) {
        problems.push(
          `${server.name}: ${listing?.error.name ?? "NoAnswer"}: ${listing?.error.message ?? "no answer"}`,
        );
        continue;
      }
      for (const tool of listing.tools) {
        tools.push({
          name: tool.name,
          source: `mcp ${server.name} ${server.url}`,
          risk: tool.risk,
          why: tool.riskReason,
          compensator:
            tool.risk === "read"
              ? "nothing to undo (reads)"
              : "none: an MCP tool declares no way to undo a call",
          inputSchema: tool.inputSchema,
        });
      }
      for (const skipped of listing.skipped)
        problems.push(`${server.name}__${skipped.tool}: left out, ${skipped.reason}`);
    }
    return { tools, problems };
  } finally {
    await connections.close();
  }
}

/** The built-ins and the Lambda tools: what the configuration alone says, no server asked. */
export function listConfiguredTools(config: GoalLoopsConfig): ToolListing[] {
  const specs = new Map(
    toolSpecs(BUILT_IN_TOOL_LIST.map((tool) => tool.name)).map((spec) => [spec.name, spec]),
  );
  const builtIns = BUILT_IN_TOOL_LIST.map((tool) => ({
    name: tool.name,
    source: "built-in",
    // A risk that depends on the input (http_request) is shown as its two cases.
    risk: typeof tool.risk === "function" ? "read (GET) / irreversible" : tool.risk,
    why: typeof tool.risk === "function" ? "built-in: GET reads, other methods change something" : "built-in",
    compensator: BUILT_IN_COMPENSATORS[tool.name] ?? "none",
    inputSchema: specs.get(tool.name)?.inputSchema ?? {},
  }));
  const lambdas = config.tools.lambda.map((tool) => ({
    name: tool.name,
    source: tool.entry === undefined ? `lambda ${tool.functionArn}` : `lambda entry ${tool.entry}`,
    risk: tool.risk,
    why:
      tool.compensate === undefined
        ? "configuration (tools.lambda[].risk, default irreversible)"
        : "configuration (tools.lambda[].risk); its compensate function undoes a call",
    compensator:
      tool.compensate === undefined
        ? tool.risk === "read"
          ? "nothing to undo (reads)"
          : "none: no compensate function (tools.lambda[].compensate)"
        : "its compensate function",
    inputSchema: tool.inputSchema,
  }));
  return [...builtIns, ...lambdas];
}

/** The listing as aligned text lines: name, risk, source, why, and what undoes a call (`undo:`). */
export function formatToolListing(tools: readonly ToolListing[]): string[] {
  const width = (pick: (tool: ToolListing) => string) => Math.max(...tools.map((tool) => pick(tool).length));
  const nameWidth = width((tool) => tool.name);
  const riskWidth = width((tool) => tool.risk);
  const sourceWidth = width((tool) => tool.source);
  const whyWidth = width((tool) => tool.why);
  return tools.map(
    (tool) =>
      `${tool.name.padEnd(nameWidth)}  ${tool.risk.padEnd(riskWidth)}  ${tool.source.padEnd(sourceWidth)}  ${tool.why.padEnd(whyWidth)}  undo: ${tool.compensator}`,
  );
}
