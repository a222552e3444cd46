/**
 * lambda/: the local Lambda service. The host that keeps warm sandboxes per function
 * (lambda-host.ts), a sandbox as a worker process with the function's environment and a handler
 * loader (lambda-sandbox.ts, lambda-worker.mjs, load-handler.mjs, lambda-env.ts), the Lambda Invoke
 * endpoint tools call (lambda-endpoint.ts), and the MCP gateway's credentials from the local
 * environment (mcp-credentials.ts).
 * Not here: what calls the functions (step-functions/ runs their tasks, api/ routes HTTP to them).
 */
export * from "./lambda-endpoint";
export * from "./lambda-env";
export * from "./lambda-host";
export * from "./lambda-sandbox";
export * from "./mcp-credentials";
