import type { BuiltInTool } from "../../../lambdas/tools/built-in-tool";
import { httpRequestTool } from "../../../lambdas/tools/http-request";
import { notifyTool } from "../../../lambdas/tools/notify";
import { toolSpecs } from "../../../lambdas/tools/tool-registry";
import { workspaceListTool } from "../../../lambdas/tools/workspace-list";
import { workspaceReadTool } from "../../../lambdas/tools/workspace-read";
import { workspaceWriteTool } from "../../../lambdas/tools/workspace-write";
import type { GoalLoopsConfig } from "../../config/goal-loops-config";

const BUILT_INS: readonly BuiltInTool[] = [
  httpRequestTool,
  notifyTool,
  workspaceListTool,
  workspaceReadTool,
  workspaceWriteTool,
];

/** One tool a configuration yields, as `goal-loops tools` shows it. */
export interface ToolListing {
  readonly name: string;
  /** `built-in`, `lambda entry <file>` or `lambda <arn>`. */
  readonly source: string;
  /** The gate: `read` runs at once, `reversible` runs and is undone on a revision, `irreversible` waits for an approval. */
  readonly risk: string;
  /** Why the tool has that risk. */
  readonly why: string;
  readonly inputSchema: Record<string, unknown>;
}

/**
 * Every tool a configuration yields, built-ins first, then its Lambda tools, each with its risk
 * and why: what a deployer checks before `cdk deploy`.
 */
export function listTools(config: GoalLoopsConfig): ToolListing[] {
  const specs = new Map(toolSpecs(BUILT_INS.map((tool) => tool.name)).map((spec) => [spec.name, spec]));
  const builtIns = BUILT_INS.map((tool) => ({
    name: tool.name,
    source: "built-in",
    // A risk that depends on the input (http_request) is shown as its two cases.
    risk: typeof tool.risk === "function" ? "read (GET) / irreversible" : tool.risk,
    why: typeof tool.risk === "function" ? "built-in: GET reads, other methods change something" : "built-in",
    inputSchema: specs.get(tool.name)?.inputSchema ?? {},
  }));
  const lambdas = config.tools.lambda.map((tool) => ({
    name: tool.name,
    source: tool.entry === undefined ? `lambda ${tool.functionArn}` : `lambda entry ${tool.entry}`,
    risk: tool.risk,
    why: "configuration (tools.lambda[].risk, default irreversible)",
    inputSchema: tool.inputSchema,
  }));
  return [...builtIns, ...lambdas];
}

/** The listing as aligned text lines: name, risk, source, why. */
export function formatToolListing(tools: readonly ToolListing[]): string[] {
  const width = (pick: (tool: ToolListing) => string) => Math.max(...tools.map((tool) => pick(tool).length));
  const nameWidth = width((tool) => tool.name);
  const riskWidth = width((tool) => tool.risk);
  const sourceWidth = width((tool) => tool.source);
  return tools.map(
    (tool) =>
      `${tool.name.padEnd(nameWidth)}  ${tool.risk.padEnd(riskWidth)}  ${tool.source.padEnd(sourceWidth)}  ${tool.why}`,
  );
}
