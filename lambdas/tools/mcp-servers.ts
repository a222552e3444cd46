import { ValidationError } from "../core/goal/errors";
import { ToolRiskSchema } from "../core/goal/frozen-tools";
import { parseOrThrow } from "../core/goal/validation";
import * as z from "../core/zod";

/**
 * One MCP server as the McpServers construct describes it to the McpGateway function
 * (`MCP_SERVERS`): where it is, which of its tools a goal may get, their risk overrides, the auth
 * header and the time limits.
 */
export const McpServerEntrySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    name: z.string().check(z.minLength(1)),
    url: z.url(),
    /** Only these tools are offered; absent: every tool the server lists. */
    allow: z.optional(z.array(z.string())),
    /** Risk per tool name, over what the annotations say. */
    risk: z.optional(z.record(z.string(), ToolRiskSchema)),
    auth: z.optional(
      z.object({
        header: z.string().check(z.minLength(1)),
        /** The Secrets Manager secret (name or ARN) holding the header's value (deployed). */
        secretId: z.optional(z.string()),
        /** The environment variable holding it (the local stack; wins when set). */
        env: z.optional(z.string()),
      }),
    ),
    connectTimeoutMs: z.number().check(z.int(), z.positive()),
    callTimeoutMs: z.number().check(z.int(), z.positive()),
  }),
);
export type McpServerEntry = z.infer<typeof McpServerEntrySchema>;

/** The manifest in `MCP_SERVERS`, or a ValidationError naming what is wrong with it. */
export function parseMcpServerManifest(text: string | undefined): McpServerEntry[] {
  if (text === undefined || text.trim() === "") return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ValidationError("MCP_SERVERS is not JSON", [{ path: "MCP_SERVERS", message: "not JSON" }]);
  }
  return parseOrThrow(z.array(McpServerEntrySchema), value, "MCP_SERVERS");
}
