import type { ToolSpec } from "../core/ports/model-client";
import * as z from "../core/zod";
import { BUILT_IN_TOOL_LIST } from "./built-in-tool-list";

/**
 * A tool's input as JSON Schema for Converse `toolSpec.inputSchema.json`: the schema as the model
 * must write it (input side: fields with defaults are optional). zod stamps a `$schema` (draft
 * 2020-12) on the root; tool schemas are plain objects the model fills in, so the dialect tag is
 * dropped rather than sent with every request.
 *
 * The built-in tools' are converted once, when `npm run tool-schemas` writes
 * built-in-tool-input-schemas.json, not in the Lambdas: zod's JSON Schema converter is about 20 KB
 * of each bundle that offers tools. A unit test fails while that file and the zod schemas disagree.
 */
export function toolInputJsonSchema(schema: z.core.$ZodType): ToolSpec["inputSchema"] {
  const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(schema, { io: "input" });
  return inputSchema;
}

/** Every built-in tool's input JSON Schema, by tool name, as built-in-tool-input-schemas.json holds them. */
export function builtInToolInputSchemas(): Record<string, ToolSpec["inputSchema"]> {
  return Object.fromEntries(
    BUILT_IN_TOOL_LIST.map((tool) => [tool.name, toolInputJsonSchema(tool.inputSchema)]),
  );
}
