/**
 * mcp/: connecting to MCP servers over Streamable HTTP with the official SDK: list tools, call one,
 * with the server's credential.
 * Not here: freezing a server's tools into a goal and mapping their risk (lambdas/tools).
 *
 * Handlers and other files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./mcp-connections";
