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
