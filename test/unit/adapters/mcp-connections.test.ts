import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { McpConnections } from "../../../lambdas/adapters/mcp/mcp-connections";
import type { McpCallAnswer, McpListAnswer } from "../../../lambdas/tools/mcp-gateway-contract";
import { createMcpGateway } from "../../../lambdas/tools/mcp-gateway-service";
import type { McpServerEntry } from "../../../lambdas/tools/mcp-servers";
import { startTestMcpServer, type TestMcpServer } from "../../support/mcp-test-server";

/**
 * The gateway over the real SDK client against a real (stateless) SDK server on 127.0.0.1: what
 * the McpGateway function does for the API and the acting steps.
 */
describe("the MCP gateway over Streamable HTTP", () => {
  let server: TestMcpServer;
  let connections: McpConnections;

  beforeEach(async () => {
    server = await startTestMcpServer();
  });
  afterEach(async () => {
    await connections?.close();
    await server.close();
  });

  function gatewayFor(entry: Partial<McpServerEntry> = {}) {
    const desk: McpServerEntry = {
      name: "desk",
      url: server.url,
      auth: { header: "Authorization", env: "DESK_TOKEN" },
      connectTimeoutMs: 2_000,
      callTimeoutMs: 1_000,
      ...entry,
    };
    connections = new McpConnections(async () => "Bearer s3cret");
    return createMcpGateway([desk], connections);
  }

  async function listDesk(gateway: ReturnType<typeof gatewayFor>) {
    const answer = (await gateway.handle({ action: "list", servers: ["desk"] })) as McpListAnswer;
    const desk = answer.servers.desk;
    if (!desk || "error" in desk) throw new Error(`no listing: ${JSON.stringify(desk)}`);
    return desk.tools;
  }

  /** A call of one of desk's tools, as the acting steps send it, with the definition the goal froze. */
  async function callDesk(
    gateway: ReturnType<typeof gatewayFor>,
    tool: string,
    definitionHash: string | undefined,
    args: Record<string, string> = {},
  ) {
    return (await gateway.handle({
      action: "call",
      server: "desk",
      tool,
      definitionHash: definitionHash ?? "",
      arguments: args,
      goalId: "g-1",
      toolUseId: "tu-1",
      idempotencyKey: "key-1",
    })) as McpCallAnswer;
  }

  it("lists and freezes the tools with the risk their annotations give, sending the auth header", async () => {
    // Act
    const tools = await listDesk(gatewayFor());

    // Assess
    expect(tools.map((tool) => [tool.name, tool.risk, tool.riskReason])).toEqual([
      ["desk__lookup", "read", "annotation readOnlyHint"],
      ["desk__delete", "irreversible", "no annotation says read-only or non-destructive"],
      ["desk__slow", "read", "annotation readOnlyHint"],
    ]);
    expect(server.authorizations.every((value) => value === "Bearer s3cret")).toBe(true);
  });

  it("reads a rotated credential afresh after a 401 and sends the call once more, with the new value", async () => {
    // Prepare: the cached value is the old one; the server now takes only the new one
    const freshReads: boolean[] = [];
    const desk: McpServerEntry = {
      name: "desk",
      url: server.url,
      auth: { header: "Authorization", secretId: "desk-token" },
      connectTimeoutMs: 2_000,
      callTimeoutMs: 1_000,
    };
    connections = new McpConnections(async (_server, options) => {
      freshReads.push(options?.fresh ?? false);
      return options?.fresh ? "Bearer rotated" : "Bearer old";
    });
    const gateway = createMcpGateway([desk], connections);
    server.requireAuthorization("Bearer rotated");

    // Act
    const answer = (await gateway.handle({ action: "list", servers: ["desk"] })) as McpListAnswer;

    // Assess
    expect(answer.servers.desk).toMatchObject({ tools: expect.any(Array) });
    expect(freshReads).toEqual([false, true]);
    expect(server.authorizations.at(-1)).toBe("Bearer rotated");
  });

  it("answers McpUnauthorized when the fresh credential is refused too, after one more try", async () => {
    // Prepare
    server.requireAuthorization("Bearer nobody-has-this");
    const gateway = gatewayFor({ auth: { header: "Authorization", env: "DESK_TOKEN" } });

    // Act
    const answer = (await gateway.handle({ action: "list", servers: ["desk"] })) as McpListAnswer;

    // Assess
    expect(answer.servers.desk).toMatchObject({ error: { name: "McpUnauthorized" } });
  });

  it("applies the allow list and risk overrides", async () => {
    // Act
    const tools = await listDesk(gatewayFor({ allow: ["lookup", "delete"], risk: { delete: "reversible" } }));

    // Assess
    expect(tools.map((tool) => [tool.name, tool.risk, tool.riskReason])).toEqual([
      ["desk__lookup", "read", "annotation readOnlyHint"],
      ["desk__delete", "reversible", "configuration override"],
    ]);
  });

  it("calls a frozen tool, passing the idempotency key in _meta", async () => {
    // Prepare
    const gateway = gatewayFor();
    const [lookup] = await listDesk(gateway);

    // Act
    const answer = await callDesk(gateway, "lookup", lookup?.definitionHash, { id: "T-1" });

    // Assess
    expect(answer).toEqual({ content: [{ type: "text", text: "ticket T-1: payment page times out" }] });
    expect(server.callMeta).toEqual([expect.objectContaining({ "goal-loops/idempotencyKey": "key-1" })]);
  });

  it("refuses a call when the server's tool changed since the goal froze it", async () => {
    // Prepare
    const gateway = gatewayFor();
    const [lookup] = await listDesk(gateway);
    server.changeLookup("Look up a ticket, then email its customer");

    // Act
    const answer = await callDesk(gateway, "lookup", lookup?.definitionHash, { id: "T-1" });

    // Assess
    expect(answer).toEqual({
      error: { name: "McpToolChanged", message: expect.stringContaining("changed since this goal started") },
    });
    expect(server.callMeta).toEqual([]);
  });

  it("answers McpTimeout for a call that outlasts its time limit", async () => {
    // Prepare
    const gateway = gatewayFor();
    const slow = (await listDesk(gateway)).find((tool) => tool.tool === "slow");

    // Act
    const answer = await callDesk(gateway, "slow", slow?.definitionHash, {});

    // Assess
    expect(answer).toEqual({
      error: { name: "McpTimeout", message: expect.stringContaining("did not answer in time") },
    });
  });

  it("answers McpServerUnreachable, not a timeout, when the server dies while a call runs", async () => {
    // Prepare: a call that takes 3 s, well inside its 10 s limit
    const gateway = gatewayFor({ callTimeoutMs: 10_000 });
    const slow = (await listDesk(gateway)).find((tool) => tool.tool === "slow");

    // Act: the server goes away mid-call
    const answer = callDesk(gateway, "slow", slow?.definitionHash, {});
    await server.slowStarted;
    await server.close();

    // Assess
    expect(await answer).toEqual({
      error: { name: "McpServerUnreachable", message: expect.stringContaining("MCP server 'desk'") },
    });
  });

  it("answers McpServerUnreachable, naming the server, once the server is gone", async () => {
    // Prepare
    const gateway = gatewayFor();
    const [lookup] = await listDesk(gateway);
    await server.close();

    // Act
    const call = await callDesk(gateway, "lookup", lookup?.definitionHash, { id: "T-1" });
    const list = (await gateway.handle({ action: "list", servers: ["desk", "nowhere"] })) as McpListAnswer;

    // Assess
    expect(call).toEqual({
      error: { name: "McpServerUnreachable", message: expect.stringContaining("MCP server 'desk'") },
    });
    expect(list.servers.desk).toEqual({
      error: { name: "McpServerUnreachable", message: expect.any(String) },
    });
    expect(list.servers.nowhere).toEqual({
      error: { name: "McpServerNotConfigured", message: expect.any(String) },
    });
  });
});
