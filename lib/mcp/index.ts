/**
 * mcp/: goals as an MCP server (the official TypeScript SDK): its tools and resources over the
 * typed client (goals-mcp-server.ts, tool-inputs.ts, wait-for-goal.ts) and its Streamable HTTP
 * endpoint with the loopback Host/Origin guard (mcp-http.ts). The local stack serves it at `/mcp`;
 * `goal-loops mcp` serves it over stdio (or `--listen`) against any stack.
 * Not here: the HTTP API it calls (lambdas/handlers/api) or its client (lib/client).
 */
export * from "./goals-mcp-server";
export * from "./mcp-command";
export * from "./mcp-http";
export * from "./tool-inputs";
export * from "./wait-for-goal";
