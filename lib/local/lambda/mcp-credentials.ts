import { parseMcpServerManifest } from "../../../lambdas/tools/mcp-servers";
import type { FunctionSpec } from "../shared/cloud-assembly-model";

/**
 * The McpGateway's servers' credentials when run locally: deployed they come from Secrets Manager;
 * locally from the variable each server's `auth.env` names (default `MCP_<NAME>_AUTH`), copied
 * from the local stack's own environment into the gateway's, and only into it. A variable that is
 * not set sends no credential; the server then answers 401, a McpUnauthorized naming it.
 */
export function withMcpCredentials(fn: FunctionSpec, env: NodeJS.ProcessEnv = process.env): FunctionSpec {
  const servers = parseMcpServerManifest(fn.environment.MCP_SERVERS);
  const credentials: Record<string, string> = {};
  for (const server of servers) {
    const name = server.auth?.env;
    const value = name === undefined ? undefined : env[name];
    if (name !== undefined && value) credentials[name] = value;
  }
  return Object.keys(credentials).length === 0
    ? fn
    : { ...fn, environment: { ...fn.environment, ...credentials } };
}
