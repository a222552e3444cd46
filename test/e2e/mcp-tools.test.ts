import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GoalLoopsApiError } from "../../lib/client/index";
import { type EverythingServer, startEverythingServer } from "../support/mcp-everything-server";
import { allEvents, E2E_MCP_PORT, type E2eStack, followGoal, startE2eStack } from "./local-stack-harness";

function mcpGoal(fixture: string, tools: readonly string[], check: Record<string, unknown>) {
  return {
    objective: "Use the everything MCP server's tools and report what they answered.",
    successChecks: [{ id: "answered", description: "the tool answered", verify: check }],
    limits: { maxSteps: 6, maxCostUsd: 0.5 },
    pattern: "react",
    tools,
    models: { default: `scripted:${fixture}` },
  };
}

/**
 * Tools of a real MCP server nobody here wrote: `@modelcontextprotocol/server-everything` over
 * Streamable HTTP, bound to 127.0.0.1, configured in the shared e2e configuration (as in examples/goal-loops.tools.config.json) and
 * reached through the McpGateway function the local stack runs from cdk.out.
 */
describe("MCP tools from the configuration", () => {
  let e2e: E2eStack;
  let server: EverythingServer;

  beforeAll(async () => {
    server = await startEverythingServer(E2E_MCP_PORT);
    e2e = await startE2eStack({ e2eConfig: true });
    e2e.writeFixture("mcp-sum", {
      reason: [
        { toolUse: { name: "everything__get-sum", input: { a: 20, b: 22 } } },
        { text: "The server says 20 + 22 = 42." },
      ],
    });
    e2e.writeFixture("mcp-is-error", {
      reason: [
        {
          toolUse: {
            name: "everything__get-resource-reference",
            input: { resourceType: "Text", resourceId: -5 },
          },
        },
        {
          toolUse: {
            name: "everything__get-resource-reference",
            input: { resourceType: "Text", resourceId: 3 },
          },
        },
        { text: "Resource 3 read." },
      ],
    });
    e2e.writeFixture("mcp-gated", {
      reason: [
        { toolUse: { name: "everything__toggle-simulated-logging", input: {} } },
        { toolUse: { name: "everything__echo", input: { message: "still here" } } },
        // The server stays down: the model keeps saying so until the goal's limits stop it.
        ...Array.from({ length: 8 }, () => ({ text: "The everything server is unreachable." })),
      ],
    });
  });

  afterAll(async () => {
    await e2e?.stop();
    await server?.kill();
  });

  /** Each call's tool, status and error name (`tool.error` carries it), in order. */
  async function toolCalls(goalId: string) {
    const events = await allEvents(e2e.client, goalId);
    const errorName = (toolUseId: unknown) =>
      events.find((event) => event.type === "tool.error" && event.toolUseId === toolUseId)?.errorName;
    return events
      .filter((event) => event.type === "tool.called")
      .map((event) => [event.name, event.status, errorName(event.toolUseId)]);
  }

  it("runs a read-only tool at once and completes on its tool_result evidence", async () => {
    // Act
    const accepted = await e2e.client.submitGoal(
      mcpGoal("mcp-sum", ["everything__get-sum"], {
        kind: "tool_result",
        tool: "everything__get-sum",
        expect: { status: "success", contains: "42" },
      }),
    );
    const { final, seen } = await followGoal(e2e.client, accepted.goalId);

    // Assess: no approval on the way, the server's answer is the evidence
    expect(final.status).toBe("completed");
    expect(seen.some((snapshot) => snapshot.status === "waiting")).toBe(false);
    expect(await toolCalls(accepted.goalId)).toEqual([["everything__get-sum", "success", undefined]]);
    // Assess: the tool list was read at goal start and frozen into the goal with its risk and hash
    const created = (await allEvents(e2e.client, accepted.goalId)).find(
      (event) => event.type === "goal.created",
    );
    expect(created?.mcpTools).toEqual([
      {
        name: "everything__get-sum",
        risk: "read",
        riskReason: "annotation readOnlyHint",
        definitionHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    ]);
  });

  it("gives an isError answer back to the model, and the loop goes on", async () => {
    // Act
    const accepted = await e2e.client.submitGoal(
      mcpGoal("mcp-is-error", ["everything__get-resource-reference"], {
        kind: "tool_result",
        tool: "everything__get-resource-reference",
        expect: { status: "success", contains: "Resource 3" },
      }),
    );
    const { final } = await followGoal(e2e.client, accepted.goalId);

    // Assess
    expect(final.status).toBe("completed");
    expect(await toolCalls(accepted.goalId)).toEqual([
      ["everything__get-resource-reference", "error", "McpToolError"],
      ["everything__get-resource-reference", "success", undefined],
    ]);
    const second = e2e.stack.bedrock
      .calls()
      .find((call) => call.goalId === accepted.goalId && call.role === "reason" && call.call === 1);
    expect(JSON.stringify(second?.request)).toContain("Invalid resourceId: -5");
  });

  it("refuses a tool the server does not offer, naming tools.N", async () => {
    // Act
    const refusal = await e2e.client
      .submitGoal(
        mcpGoal("mcp-sum", ["everything__get-sum", "everything__launch-rocket"], {
          kind: "artifact",
          path: "x",
        }),
      )
      .catch((error: unknown) => error);

    // Assess
    expect(refusal).toBeInstanceOf(GoalLoopsApiError);
    const { status, body } = refusal as GoalLoopsApiError;
    expect(status).toBe(400);
    expect(body.issues).toEqual([
      { path: "tools.1", message: expect.stringContaining("offers no tool 'everything__launch-rocket'") },
    ]);
  });

  it("waits for an approval of a tool that is not read-only, bound to its definition; a dead server is a tool error, never a stuck goal", async () => {
    // Prepare: the gated call waits, showing server, tool and definition hash
    const accepted = await e2e.client.submitGoal(
      mcpGoal("mcp-gated", ["everything__*"], {
        kind: "tool_result",
        tool: "everything__echo",
        expect: { status: "success", contains: "still here" },
      }),
    );
    const waiting = await followGoal(e2e.client, accepted.goalId);
    expect(waiting.final).toMatchObject({ status: "waiting", waitingFor: { kind: "approval" } });
    const [approval] = (await e2e.client.listApprovals("pending")).filter(
      (item) => item.goalId === accepted.goalId,
    );
    expect(JSON.stringify(approval)).toMatch(
      /everything__toggle-simulated-logging \(MCP server everything, tool toggle-simulated-logging, definition sha256 [0-9a-f]{12}\)/,
    );
    expect(await toolCalls(accepted.goalId)).toEqual([]);

    // Act: the server dies while the goal waits; then a human approves
    await server.kill();
    await e2e.client.decideApproval(approval?.approvalId ?? "", "approve");
    await e2e.stack.events.idle();
    const { final } = await followGoal(e2e.client, accepted.goalId, { deadlineMs: 90_000 });

    // Assess: both calls failed as tool errors the model read; the goal paused for want of progress
    expect(await toolCalls(accepted.goalId)).toEqual([
      ["everything__toggle-simulated-logging", "error", "McpServerUnreachable"],
      ["everything__echo", "error", "McpServerUnreachable"],
    ]);
    expect(final).toMatchObject({ status: "paused", stopReason: { kind: "no_progress" } });
  });

  it("answers 502 naming the server when a goal starts while the server is down", async () => {
    // Act (the server was killed by the test before)
    const refusal = await e2e.client
      .submitGoal(mcpGoal("mcp-sum", ["everything__get-sum"], { kind: "artifact", path: "x" }))
      .catch((error: unknown) => error);

    // Assess
    expect(refusal).toBeInstanceOf(GoalLoopsApiError);
    const { status, body } = refusal as GoalLoopsApiError;
    expect(status).toBe(502);
    expect(body).toMatchObject({
      code: "McpServerUnavailable",
      message: expect.stringContaining(
        "MCP server 'everything' could not list its tools: McpServerUnreachable",
      ),
    });
  });
});
