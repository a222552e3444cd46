import { FrozenToolSchema } from "../core/goal/frozen-tools";
import * as z from "../core/zod";

/**
 * The McpGateway function's event and answers. One function holds the MCP client (315 KB bundled,
 * FACTS), the servers' auth secrets and their network reach; the goals API (listing at goal start)
 * and the acting steps (calls) invoke it, so neither carries the client nor sees a secret.
 */

const ServerNameSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.string().check(z.minLength(1), z.maxLength(32)),
);

export const McpListRequestSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    action: z.literal("list"),
    servers: z.array(ServerNameSchema).check(z.minLength(1)),
  }),
);

export const McpCallRequestSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    action: z.literal("call"),
    server: ServerNameSchema,
    tool: z.string().check(z.minLength(1)),
    /** The definition the goal froze: the call is refused when the server's tool is no longer it. */
    definitionHash: z.string(),
    arguments: z.record(z.string(), z.json()),
    goalId: z.string(),
    toolUseId: z.string(),
    idempotencyKey: z.string(),
  }),
);
export type McpCallRequest = z.infer<typeof McpCallRequestSchema>;

export const McpGatewayRequestSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.discriminatedUnion("action", [McpListRequestSchema, McpCallRequestSchema]),
);
export type McpGatewayRequest = z.infer<typeof McpGatewayRequestSchema>;

/** A failure the gateway names (McpServerUnreachable, McpTimeout, McpProtocolError, McpToolChanged …). */
export const McpGatewayErrorSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    name: z.string().check(z.minLength(1)),
    message: z.string(),
  }),
);
export type McpGatewayError = z.infer<typeof McpGatewayErrorSchema>;

export const McpServerListingSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.union([
    z.object({
      tools: z.array(FrozenToolSchema),
      skipped: z.array(z.object({ tool: z.string(), reason: z.string() })),
    }),
    z.object({ error: McpGatewayErrorSchema }),
  ]),
);
export type McpServerListing = z.infer<typeof McpServerListingSchema>;

export const McpListAnswerSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({ servers: z.record(z.string(), McpServerListingSchema) }),
);
export type McpListAnswer = z.infer<typeof McpListAnswerSchema>;

/** One MCP content block (the SDK's shapes, loosely: a server may add fields). */
export const McpContentSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.discriminatedUnion("type", [
    z.looseObject({ type: z.literal("text"), text: z.string() }),
    z.looseObject({ type: z.literal("image"), data: z.string(), mimeType: z.string() }),
    z.looseObject({ type: z.literal("audio"), data: z.string(), mimeType: z.string() }),
    z.looseObject({
      type: z.literal("resource_link"),
      uri: z.string(),
      name: z.optional(z.string()),
      mimeType: z.optional(z.string()),
    }),
    z.looseObject({
      type: z.literal("resource"),
      resource: z.looseObject({
        uri: z.string(),
        mimeType: z.optional(z.string()),
        text: z.optional(z.string()),
        blob: z.optional(z.string()),
      }),
    }),
  ]),
);
export type McpContent = z.infer<typeof McpContentSchema>;

export const McpCallAnswerSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.union([
    z.object({
      content: z.array(McpContentSchema),
      structuredContent: z.optional(z.record(z.string(), z.json())),
      isError: z.optional(z.boolean()),
    }),
    z.object({ error: McpGatewayErrorSchema }),
  ]),
);
export type McpCallAnswer = z.infer<typeof McpCallAnswerSchema>;

/** How the API and the acting steps reach the gateway (a Lambda invoke deployed and locally). */
export interface McpGatewayClient {
  list(servers: readonly string[]): Promise<McpListAnswer>;
  call(request: Omit<McpCallRequest, "action">): Promise<McpCallAnswer>;
}
