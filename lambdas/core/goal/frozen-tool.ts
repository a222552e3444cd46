import * as z from "../zod";

/**
 * The shape of an MCP tool frozen into a goal (see frozen-tools.ts for how tools are frozen). Kept
 * apart, free of other imports, because the goal record holds it.
 */

/** What Bedrock accepts as a tool name, so a frozen tool's full name can be offered to the model. */
export const BEDROCK_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The MCP annotation hints risk is read from (other hints are kept for display only). */
export const McpAnnotationsSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.looseObject({
    title: z.optional(z.string()),
    readOnlyHint: z.optional(z.boolean()),
    destructiveHint: z.optional(z.boolean()),
    idempotentHint: z.optional(z.boolean()),
    openWorldHint: z.optional(z.boolean()),
  }),
);
export type McpAnnotations = z.infer<typeof McpAnnotationsSchema>;

export const ToolRiskSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.enum(["read", "reversible", "irreversible"]),
);

/** Why a tool got its risk, shown by `goal-loops tools` and in approvals. */
export const RiskReasonSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.enum([
    "annotation readOnlyHint",
    "annotation destructiveHint false",
    "no annotation says read-only or non-destructive",
    "configuration override",
  ]),
);
export type RiskReason = z.infer<typeof RiskReasonSchema>;

export const FrozenToolSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    /** `<server>__<tool>`: what the model calls and a GoalSpec's tools[] names. */
    name: z.string().check(z.regex(BEDROCK_TOOL_NAME)),
    source: z.literal("mcp"),
    server: z.string().check(z.minLength(1)),
    /** The tool's own name on its server. */
    tool: z.string().check(z.minLength(1)),
    description: z.string(),
    inputSchema: z.record(z.string(), z.json()),
    annotations: z.optional(McpAnnotationsSchema),
    risk: ToolRiskSchema,
    riskReason: RiskReasonSchema,
    /** sha256 of the server's definition (name, description, input schema, annotations). */
    definitionHash: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  }),
);
export type FrozenTool = z.infer<typeof FrozenToolSchema>;
