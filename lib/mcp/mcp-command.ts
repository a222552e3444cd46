import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { API_VERSION } from "../../lambdas/handlers/api/contract/openapi-document";
import { bearerFetch } from "../client/bearer-fetch";
import { GoalLoopsClient } from "../client/goal-loops-client";
import { signedFetch } from "../client/sigv4-fetch";
import { createGoalsMcpServer } from "./goals-mcp-server";
import { startMcpHttpServer } from "./mcp-http";

export interface McpCommandOptions {
  /** The goals API: a deployed stack's ApiUrl, or the local stack. */
  readonly api: string;
  readonly profile?: string;
  readonly region?: string;
  /** A bearer token (`--token`, GOAL_LOOPS_TOKEN): sent instead of a SigV4 signature, locally too. */
  readonly token?: string;
}

/**
 * The client `goal-loops mcp` calls the API with: with the bearer token when one is given, else
 * SigV4-signed with the user's credentials (the SDK chain, or `--profile`) for a deployed stack and
 * unsigned for a loopback URL (the local stack). Throws SigningSetupError when no region can be
 * told, BadTokenError when the token is not a JWT.
 */
export function mcpApiClient(options: McpCommandOptions): GoalLoopsClient {
  if (options.token !== undefined) {
    return new GoalLoopsClient(options.api, { fetch: bearerFetch(options.token) });
  }
  return new GoalLoopsClient(options.api, {
    fetch: signedFetch({
      apiUrl: options.api,
      ...(options.profile === undefined ? {} : { profile: options.profile }),
      ...(options.region === undefined ? {} : { region: options.region }),
    }),
  });
}

/** `goal-loops mcp`: the MCP server on stdin/stdout, for hosts that launch servers as commands. */
export async function runMcpStdio(options: McpCommandOptions): Promise<void> {
  const server = createGoalsMcpServer(mcpApiClient(options), API_VERSION);
  await server.connect(new StdioServerTransport());
}

/** `goal-loops mcp --listen <port>`: the same server over Streamable HTTP on 127.0.0.1 only. */
export async function runMcpListen(options: McpCommandOptions & { port: number }) {
  const client = mcpApiClient(options);
  return startMcpHttpServer({ port: options.port, version: API_VERSION, clientFor: () => client });
}
