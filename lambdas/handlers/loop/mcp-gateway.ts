import { Logger } from "@aws-lambda-powertools/logger";
import { McpConnections } from "../../adapters/mcp/mcp-connections";
import { readSecretWhenNeeded, SECRET_MAX_AGE_SECONDS } from "../../adapters/secrets/read-secret";
import { parseOrThrow } from "../../core/goal/validation";
import { McpGatewayRequestSchema } from "../../tools/mcp-gateway-contract";
import { createMcpGateway } from "../../tools/mcp-gateway-service";
import { type McpServerEntry, parseMcpServerManifest } from "../../tools/mcp-servers";

const logger = new Logger();
const servers = parseMcpServerManifest(process.env.MCP_SERVERS);

/**
 * A server's auth header value: the variable `auth.env` names when it is set (the local stack sets
 * it from its own environment), else the Secrets Manager secret (deployed), read through
 * Powertools' cache so a rotation takes effect within minutes, or at once after a 401.
 */
async function authValue(
  server: McpServerEntry,
  options: { readonly fresh: boolean } = { fresh: false },
): Promise<string | undefined> {
  if (!server.auth) return undefined;
  const fromEnv = server.auth.env === undefined ? undefined : process.env[server.auth.env];
  if (fromEnv) return fromEnv;
  if (server.auth.secretId === undefined) return undefined;
  // After the server refused the cached value: read past the cache once (a rotation just happened).
  const secret = await readSecretWhenNeeded(server.auth.secretId, {
    maxAge: SECRET_MAX_AGE_SECONDS,
    ...(options.fresh ? { forceFetch: true } : {}),
  });
  return typeof secret === "string" ? secret : undefined;
}

// Module scope: a warm container keeps its sessions with the servers.
const gateway = createMcpGateway(servers, new McpConnections(authValue));

/**
 * McpGateway: lists the configured MCP servers' tools for a starting goal (the goals API) and runs
 * calls of frozen tools (the acting steps). Only a malformed event throws; a server's failure is
 * part of the answer.
 */
export async function handler(event: unknown) {
  const request = parseOrThrow(McpGatewayRequestSchema, event, "McpGateway event");
  const answer = await gateway.handle(request);
  if ("error" in answer) {
    logger.warn("MCP call failed", {
      server: request.action === "call" ? request.server : undefined,
      error: answer.error,
    });
  }
  return answer;
}
