import http from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import * as z from "zod";

export interface TestMcpServer {
  readonly url: string;
  /** The `authorization` header of every request, in order. */
  readonly authorizations: (string | undefined)[];
  /** The `_meta` of every tools/call, in order. */
  readonly callMeta: unknown[];
  /** Resolves once a call of `slow` has reached the tool (the server is mid-call from then on). */
  readonly slowStarted: Promise<void>;
  /** Changes `lookup`'s description from the next request on (a server that changed a tool). */
  changeLookup(description: string): void;
  /** From now on, answers 401 to any request whose `authorization` is not this value. */
  requireAuthorization(value: string): void;
  close(): Promise<void>;
}

/**
 * A small stateless MCP server of our own (FACTS: a new McpServer and transport per request), for
 * what server-everything does not have: a tool with no annotations at all (`delete`), one that
 * outlasts a call's timeout (`slow`), and a tool whose definition changes.
 */
export async function startTestMcpServer(): Promise<TestMcpServer> {
  const authorizations: (string | undefined)[] = [];
  const callMeta: unknown[] = [];
  let lookupDescription = "Look up a ticket by id";
  let required: string | undefined;
  let slowStarted: () => void = () => undefined;
  const slowStartedPromise = new Promise<void>((resolveStarted) => {
    slowStarted = resolveStarted;
  });

  const serverFor = () => {
    const server = new McpServer({ name: "desk", version: "1.0.0" });
    server.registerTool(
      "lookup",
      {
        description: lookupDescription,
        inputSchema: { id: z.string() },
        annotations: { readOnlyHint: true },
      },
      async ({ id }, extra) => {
        callMeta.push(extra._meta);
        return { content: [{ type: "text", text: `ticket ${id}: payment page times out` }] };
      },
    );
    server.registerTool(
      "delete",
      { description: "Delete a ticket", inputSchema: { id: z.string() } },
      async ({ id }) => ({
        content: [{ type: "text", text: `deleted ${id}` }],
      }),
    );
    server.registerTool(
      "slow",
      { description: "Takes its time", annotations: { readOnlyHint: true } },
      async () => {
        slowStarted();
        await new Promise((resolveDelay) => setTimeout(resolveDelay, 3_000));
        return { content: [{ type: "text", text: "finally" }] };
      },
    );
    return server;
  };

  const httpServer = http.createServer(async (req, res) => {
    authorizations.push(req.headers.authorization);
    if (required !== undefined && req.headers.authorization !== required) {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "invalid_token" }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(Buffer.from(chunk));
    const body = chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const server = serverFor();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolveListen) => httpServer.listen(0, "127.0.0.1", resolveListen));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    authorizations,
    callMeta,
    slowStarted: slowStartedPromise,
    changeLookup: (description) => {
      lookupDescription = description;
    },
    requireAuthorization: (value) => {
      required = value;
    },
    close: () =>
      new Promise((resolveClose) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolveClose());
      }),
  };
}
