import type * as z from "../zod";
import { canonicalJson, sha256Hex } from "./canonical-json";
import {
  BEDROCK_TOOL_NAME,
  type FrozenTool,
  type McpAnnotations,
  type RiskReason,
  ToolRiskSchema,
} from "./frozen-tool";
import type { JsonValue } from "./goal-change";

export * from "./frozen-tool";

/**
 * Tools of MCP servers as a goal got them when it started (DESIGN §6 "Tools"): the server's tool
 * list is read once, and the granted tools are frozen into the goal. The model sees the same
 * definitions for the whole goal (a stable prompt prefix), and an approval binds to the exact
 * definition by its hash: a server that changes a tool afterwards cannot slip a different tool
 * under an approved call.
 */

/** Separates the server's name from the tool's: `<server>__<tool>`. */
export const MCP_TOOL_SEPARATOR = "__";

/** One tool as an MCP server lists it (`tools/list`), the fields goal-loops reads. */
export interface McpToolDefinition {
  readonly name: string;
  readonly description?: string | undefined;
  readonly inputSchema: Record<string, JsonValue>;
  readonly annotations?: McpAnnotations | undefined;
}

/**
 * The risk DESIGN §6 gives an MCP tool: `readOnlyHint: true` → read, `destructiveHint: false` →
 * reversible, anything else → irreversible (a missing hint is absent, not defaulted — FACTS), unless
 * the configuration overrides it.
 */
export function mcpToolRisk(
  annotations: McpAnnotations | undefined,
  override: z.infer<typeof ToolRiskSchema> | undefined,
): { risk: z.infer<typeof ToolRiskSchema>; riskReason: RiskReason } {
  if (override !== undefined) return { risk: override, riskReason: "configuration override" };
  if (annotations?.readOnlyHint === true) return { risk: "read", riskReason: "annotation readOnlyHint" };
  if (annotations?.destructiveHint === false) {
    return { risk: "reversible", riskReason: "annotation destructiveHint false" };
  }
  return { risk: "irreversible", riskReason: "no annotation says read-only or non-destructive" };
}

/** The hash an approval binds to: everything the server says the tool is, canonically. */
export function mcpDefinitionHash(server: string, tool: McpToolDefinition): string {
  return sha256Hex(
    canonicalJson({
      server,
      name: tool.name,
      description: tool.description ?? "",
      inputSchema: tool.inputSchema,
      annotations: (tool.annotations ?? {}) as JsonValue,
    }),
  );
}

export function mcpToolName(server: string, tool: string): string {
  return `${server}${MCP_TOOL_SEPARATOR}${tool}`;
}

/** The server a `<server>__<tool>` name (or a `<server>__*` grant) points at, if it has the form. */
export function mcpServerOf(name: string): string | undefined {
  const at = name.indexOf(MCP_TOOL_SEPARATOR);
  return at > 0 ? name.slice(0, at) : undefined;
}

/** A grant of every allowed tool of one server. */
export function isWholeServerGrant(name: string): boolean {
  return name.endsWith(`${MCP_TOOL_SEPARATOR}*`);
}

/**
 * Freezes one server's tools: each with its full name, risk (annotations or override) and
 * definition hash. Tools outside `allow` (when given) are left out; so is a tool whose full name
 * Bedrock would not accept, with the reason in `skipped`.
 */
export function freezeServerTools(
  server: string,
  tools: readonly McpToolDefinition[],
  options: { readonly allow?: readonly string[]; readonly risk?: Readonly<Record<string, string>> },
): { tools: FrozenTool[]; skipped: { tool: string; reason: string }[] } {
  const frozen: FrozenTool[] = [];
  const skipped: { tool: string; reason: string }[] = [];
  for (const tool of tools) {
    if (options.allow !== undefined && !options.allow.includes(tool.name)) {
      skipped.push({ tool: tool.name, reason: "not in the server's allow list" });
      continue;
    }
    const name = mcpToolName(server, tool.name);
    if (!BEDROCK_TOOL_NAME.test(name)) {
      skipped.push({
        tool: tool.name,
        reason: `'${name}' is not a tool name Bedrock accepts (letters, digits, _ and -, at most 64)`,
      });
      continue;
    }
    const override = ToolRiskSchema.safeParse(options.risk?.[tool.name]);
    frozen.push({
      name,
      source: "mcp",
      server,
      tool: tool.name,
      description: tool.description ?? "",
      inputSchema: tool.inputSchema,
      ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
      ...mcpToolRisk(tool.annotations, override.success ? override.data : undefined),
      definitionHash: mcpDefinitionHash(server, tool),
    });
  }
  return { tools: frozen, skipped };
}
