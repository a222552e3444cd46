import { freezeServerTools, type McpToolDefinition, mcpDefinitionHash } from "../core/goal/frozen-tools";
import type { JsonValue } from "../core/goal/goal-change";
import {
  type McpCallAnswer,
  type McpCallRequest,
  type McpContent,
  McpContentSchema,
  type McpGatewayError,
  type McpGatewayRequest,
  type McpListAnswer,
  type McpServerListing,
} from "./mcp-gateway-contract";
import type { McpServerEntry } from "./mcp-servers";

/** The MCP protocol as the gateway needs it (the SDK client deployed; a fake in unit tests). */
export interface McpSessions {
  listTools(server: McpServerEntry): Promise<McpToolDefinition[]>;
  callTool(
    server: McpServerEntry,
    call: { tool: string; arguments: Record<string, JsonValue>; idempotencyKey: string },
  ): Promise<{
    readonly content: readonly Record<string, unknown>[];
    readonly structuredContent?: Record<string, JsonValue>;
    readonly isError?: boolean;
  }>;
}

/**
 * What the McpGateway function does: lists and freezes servers' tools for a starting goal, and runs
 * calls of frozen tools, refusing one whose definition changed on the server since the goal froze
 * it. A failing server is an answer (`{error}`), never a throw, so one bad server does not fail a
 * listing of others and a call's failure reaches the model as a tool error.
 */
export function createMcpGateway(servers: readonly McpServerEntry[], sessions: McpSessions) {
  const byName = new Map(servers.map((server) => [server.name, server]));

  async function listServer(server: McpServerEntry): Promise<McpServerListing> {
    try {
      const tools = await sessions.listTools(server);
      return freezeServerTools(server.name, tools, {
        ...(server.allow === undefined ? {} : { allow: server.allow }),
        ...(server.risk === undefined ? {} : { risk: server.risk }),
      });
    } catch (error) {
      return { error: gatewayError(error) };
    }
  }

  /**
   * The tool's definition hash as the server lists it right now. Listed before every call (one
   * request, 7–36 ms warm): a cached listing would let a tool changed since the last one run under
   * an approval given to its old definition.
   */
  async function currentHash(server: McpServerEntry, tool: string): Promise<string | undefined> {
    const found = (await sessions.listTools(server)).find((entry) => entry.name === tool);
    return found && mcpDefinitionHash(server.name, found);
  }

  async function call(request: McpCallRequest): Promise<McpCallAnswer> {
    const server = byName.get(request.server);
    if (!server) {
      return {
        error: {
          name: "McpServerNotConfigured",
          message: `MCP server '${request.server}' is not in this deployment's configuration (tools.mcp)`,
        },
      };
    }
    if (server.allow !== undefined && !server.allow.includes(request.tool)) {
      return {
        error: {
          name: "McpToolNotAllowed",
          message: `Tool '${request.tool}' of MCP server '${server.name}' is not in its allow list any more`,
        },
      };
    }
    try {
      const hash = await currentHash(server, request.tool);
      if (hash !== request.definitionHash) {
        return {
          error: {
            name: "McpToolChanged",
            message:
              hash === undefined
                ? `MCP server '${server.name}' no longer lists tool '${request.tool}'`
                : `Tool '${request.tool}' of MCP server '${server.name}' changed since this goal started (definition ${hash.slice(0, 12)}, the goal has ${request.definitionHash.slice(0, 12)}): it was not called`,
          },
        };
      }
      const result = await sessions.callTool(server, {
        tool: request.tool,
        arguments: request.arguments,
        idempotencyKey: request.idempotencyKey,
      });
      return {
        content: result.content.map(contentBlock),
        ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
        ...(result.isError === true ? { isError: true } : {}),
      };
    } catch (error) {
      return { error: gatewayError(error) };
    }
  }

  return {
    async handle(request: McpGatewayRequest): Promise<McpListAnswer | McpCallAnswer> {
      if (request.action === "call") return call(request);
      const entries = await Promise.all(
        request.servers.map(async (name): Promise<[string, McpServerListing]> => {
          const server = byName.get(name);
          return [
            name,
            server
              ? await listServer(server)
              : {
                  error: {
                    name: "McpServerNotConfigured",
                    message: `MCP server '${name}' is not in this deployment's configuration (tools.mcp)`,
                  },
                },
          ];
        }),
      );
      return { servers: Object.fromEntries(entries) };
    },
  };
}

/** A content block as the contract carries it; a kind this version does not know is kept as text. */
function contentBlock(block: Record<string, unknown>): McpContent {
  const parsed = McpContentSchema.safeParse(block);
  return parsed.success
    ? parsed.data
    : { type: "text", text: `[content of type '${String(block.type)}' that goal-loops does not read]` };
}

/** Errors the sessions raise carry a stable `Mcp…` name; anything else is a protocol error. */
function gatewayError(error: unknown): McpGatewayError {
  if (error instanceof Error && error.name.startsWith("Mcp"))
    return { name: error.name, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { name: "McpProtocolError", message };
}
