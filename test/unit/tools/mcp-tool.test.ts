import { describe, expect, it } from "vitest";
import { type FrozenTool, freezeServerTools } from "../../../lambdas/core/goal/frozen-tools";
import type { JsonObject } from "../../../lambdas/tools/built-in-tool";
import { createBuiltInToolRunner } from "../../../lambdas/tools/built-in-tool-runner";
import type {
  McpCallAnswer,
  McpCallRequest,
  McpGatewayClient,
} from "../../../lambdas/tools/mcp-gateway-contract";
import { callContext, InMemoryOutbox, InMemoryWorkspace, NOW } from "./support";

const [LOOKUP, DELETE] = freezeServerTools(
  "desk",
  [
    {
      name: "lookup",
      description: "Look up a ticket",
      inputSchema: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { id: { type: "string" } },
        required: ["id"],
      },
      annotations: { readOnlyHint: true },
    },
    { name: "delete", description: "Delete a ticket", inputSchema: { type: "object" } },
  ],
  {},
).tools as [FrozenTool, FrozenTool];

/** A gateway that answers what the test scripts, and records each call it got. */
function scriptedGateway(answer: McpCallAnswer) {
  const calls: Omit<McpCallRequest, "action">[] = [];
  const gateway: McpGatewayClient = {
    list: async () => ({ servers: {} }),
    call: async (request) => {
      calls.push(request);
      return answer;
    },
  };
  return { calls, gateway };
}

function runnerWith(answer: McpCallAnswer) {
  const { calls, gateway } = scriptedGateway(answer);
  const workspace = new InMemoryWorkspace();
  const runner = createBuiltInToolRunner({
    workspace,
    outbox: new InMemoryOutbox(),
    allowedHosts: [],
    now: () => NOW,
    mcpGateway: gateway,
  });
  const frozenTools = [LOOKUP, DELETE];
  const context = callContext({ grantedTools: [LOOKUP.name, DELETE.name], frozenTools });
  const call = (input: JsonObject, name = LOOKUP.name) => ({ toolUseId: "tu-1", name, input });
  return { runner, calls, context, call, workspace, frozenTools };
}

describe("an MCP tool frozen into a goal", () => {
  it("offers the frozen definition to the model without the schema's dialect tag, with its risk", () => {
    // Prepare
    const { runner, frozenTools } = runnerWith({ content: [] });

    // Act
    const specs = runner.specsFor([LOOKUP.name], frozenTools);

    // Assess
    expect(specs).toEqual([
      {
        name: "desk__lookup",
        description: "Look up a ticket",
        inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      },
    ]);
    expect(runner.riskOf({ toolUseId: "t", name: LOOKUP.name, input: { id: "1" } }, frozenTools)).toBe(
      "read",
    );
    expect(runner.riskOf({ toolUseId: "t", name: DELETE.name, input: {} }, frozenTools)).toBe("irreversible");
    // Without the goal's frozen list the name means nothing
    expect(runner.specsFor([LOOKUP.name])).toEqual([]);
  });

  it("calls the gateway with the server's own tool name, the definition hash and the idempotency key", async () => {
    // Prepare
    const { runner, calls, context, call } = runnerWith({
      content: [{ type: "text", text: '{"temperature":33}' }],
      structuredContent: { temperature: 33 },
    });

    // Act
    const outcome = await runner.run(call({ id: "T-1" }), context);

    // Assess: structured content is the result
    expect(outcome.result).toEqual({
      toolUseId: "tu-1",
      status: "success",
      content: [{ json: { temperature: 33 } }],
    });
    expect(calls).toEqual([
      {
        server: "desk",
        tool: "lookup",
        definitionHash: LOOKUP.definitionHash,
        arguments: { id: "T-1" },
        goalId: context.goalId,
        toolUseId: "tu-1",
        idempotencyKey: context.idempotencyKey,
      },
    ]);
  });

  it("turns isError into a McpToolError the model reads", async () => {
    // Prepare
    const { runner, context, call } = runnerWith({
      content: [{ type: "text", text: "Invalid resourceId: -5." }],
      isError: true,
    });

    // Act
    const outcome = await runner.run(call({ id: "T-1" }), context);

    // Assess
    expect(outcome.errorName).toBe("McpToolError");
    expect(JSON.stringify(outcome.result)).toContain("desk__lookup: Invalid resourceId: -5.");
  });

  it("turns a gateway error (server unreachable) into that tool error", async () => {
    // Prepare
    const { runner, context, call } = runnerWith({
      error: { name: "McpServerUnreachable", message: "MCP server 'desk' is unreachable: ECONNREFUSED" },
    });

    // Act
    const outcome = await runner.run(call({ id: "T-1" }), context);

    // Assess
    expect(outcome.errorName).toBe("McpServerUnreachable");
  });

  it("refuses input its schema rejects before any call", async () => {
    // Prepare
    const { runner, calls, context, call } = runnerWith({ content: [] });

    // Act
    const outcome = await runner.run(call({ id: 7 }), context);

    // Assess
    expect(outcome.errorName).toBe("InvalidToolInput");
    expect(calls).toEqual([]);
  });

  it("stores images and embedded resources as artifacts and keeps links as links", async () => {
    // Prepare
    const { runner, context, call, workspace } = runnerWith({
      content: [
        { type: "text", text: "Here you are" },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        { type: "resource", resource: { uri: "demo://r/3", mimeType: "text/plain", text: "Resource 3" } },
        { type: "resource_link", uri: "demo://r/4", name: "Resource 4" },
      ],
    });

    // Act
    const outcome = await runner.run(call({ id: "T-1" }), context);

    // Assess
    const image = `.artifacts/${context.iteration}-tu-1-1.png.base64`;
    const resource = `.artifacts/${context.iteration}-tu-1-2.txt`;
    expect(outcome.result.content).toEqual([
      {
        json: {
          text: "Here you are",
          resourceLinks: [{ uri: "demo://r/4", name: "Resource 4" }],
          artifacts: [
            { kind: "image", path: image, bytes: 12, mimeType: "image/png" },
            { kind: "resource", path: resource, bytes: 10, mimeType: "text/plain", uri: "demo://r/3" },
          ],
        },
      },
    ]);
    expect(outcome.artifacts.map((artifact) => artifact.path)).toEqual([image, resource]);
    expect((await workspace.readFile(context.goalId, resource))?.content).toBe("Resource 3");
  });
});
