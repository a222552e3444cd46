import type { FrozenTool } from "../core/goal/frozen-tools";
import type { ToolSpec } from "../core/ports/model-client";
import type { RegisteredTool } from "./tool-registry";

/**
 * The schema as Bedrock gets it in `toolSpec.inputSchema.json`: without the `$schema` dialect tag
 * (MCP servers stamp draft-07; the model needs only the shape).
 */
export function modelInputSchema<T extends Record<string, unknown>>(inputSchema: T): Omit<T, "$schema"> {
  const { $schema: _dialect, ...shape } = inputSchema;
  return shape;
}

/**
 * What the model is offered for an MCP tool as the goal froze it. Apart from mcp-tool.ts, which
 * also checks a call's input (json-schema-input.ts): a function that only offers tools (Plan)
 * bundles no JSON Schema validator.
 */
export function mcpToolSpec(tool: FrozenTool): ToolSpec {
  return { name: tool.name, description: tool.description, inputSchema: modelInputSchema(tool.inputSchema) };
}

/**
 * An MCP tool as a function that only offers tools (Plan) registers it: its spec, and a `prepare`
 * that refuses, since such a function runs no tool (mcp-tool.ts builds the runnable one).
 */
export function offeredMcpTool(tool: FrozenTool): RegisteredTool {
  return {
    name: tool.name,
    spec: mcpToolSpec(tool),
    prepare() {
      throw new Error(`MCP tool '${tool.name}' is only offered here: this function runs no tool`);
    },
  };
}
