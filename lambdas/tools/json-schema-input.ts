import * as z from "zod";

/**
 * A user tool's JSON Schema (a Lambda tool's from the configuration, an MCP tool's from its server)
 * as a zod schema its input is checked with before the call; an object of any fields when zod
 * cannot read the schema (then the tool itself is the judge of its input).
 */
export function inputSchemaFromJsonSchema(inputSchema: Record<string, unknown>): z.ZodType {
  try {
    return z.fromJSONSchema(inputSchema as z.core.JSONSchema.JSONSchema);
  } catch {
    return z.record(z.string(), z.json());
  }
}

/**
 * The schema as Bedrock gets it in `toolSpec.inputSchema.json`: without the `$schema` dialect tag
 * (MCP servers stamp draft-07; the model needs only the shape).
 */
export function modelInputSchema<T extends Record<string, unknown>>(inputSchema: T): Omit<T, "$schema"> {
  const { $schema: _dialect, ...shape } = inputSchema;
  return shape;
}
