import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GoalLoopsApiError } from "../../lib/client/index";
import { allEvents, type E2eStack, followGoal, PROJECT_DIR, startE2eStack } from "./local-stack-harness";

function triageGoal(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const goal = JSON.parse(readFileSync(join(PROJECT_DIR, "examples", "goals", "triage-ticket.json"), "utf8"));
  return { ...goal, ...overrides };
}

/**
 * The example Lambda tool (examples/tools/lookup-ticket.ts), declared in
 * examples/goal-loops.tools.config.json: synthesized into a cloud assembly of this file's own and
 * run by the local stack as a function of its own, reached through the local Lambda endpoint.
 */
describe("a Lambda tool from the configuration", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await startE2eStack({ e2eConfig: true });
    e2e.writeFixture("ticket-not-found-first", {
      reason: [
        { toolUse: { name: "lookup_ticket", input: { ticketId: "T-9999" } } },
        { toolUse: { name: "lookup_ticket", input: { ticketId: "T-1042" } } },
      ],
    });
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it("runs the example tool as a sandboxed function from cdk.out and completes on its tool_result evidence", async () => {
    // Act
    const accepted = await e2e.client.submitGoal(triageGoal());
    const { final } = await followGoal(e2e.client, accepted.goalId);

    // Assess: completed on the tool's evidence
    expect(final.status).toBe("completed");
    expect(final.satisfiedChecks).toEqual(["ticket-read"]);
    const events = await allEvents(e2e.client, accepted.goalId);
    expect(
      events.filter((event) => event.type === "tool.called").map((event) => [event.name, event.status]),
    ).toEqual([["lookup_ticket", "success"]]);
    // Assess: the tool is a function of the assembly; the text the check found is only in its bundle
    expect(e2e.stack.model.functions.some((fn) => fn.logicalId.startsWith("ToolslookupticketFunction"))).toBe(
      true,
    );
    const evidence = events.filter((event) => event.type === "evidence.recorded");
    expect(JSON.stringify(evidence)).toContain("lookup_ticket");
  });

  it("gives the model the error the tool answers, and the goal goes on", async () => {
    // Act
    const accepted = await e2e.client.submitGoal(
      triageGoal({ models: { default: "scripted:ticket-not-found-first" } }),
    );
    const { final } = await followGoal(e2e.client, accepted.goalId);

    // Assess
    expect(final.status).toBe("completed");
    const events = await allEvents(e2e.client, accepted.goalId);
    expect(events.filter((event) => event.type === "tool.called").map((event) => event.status)).toEqual([
      "error",
      "success",
    ]);
    const retry = e2e.stack.bedrock
      .calls()
      .find((call) => call.goalId === accepted.goalId && call.role === "reason" && call.call === 1);
    expect(JSON.stringify(retry?.request)).toContain("TicketNotFound: No ticket T-9999");
  });

  it("undoes a reversible tool's call with its compensate function when a corrective revision asks", async () => {
    // Prepare: lower T-1043's priority (reversible: runs at once), then read the ticket until the
    // corrective revision (sent while the next model call takes its time) has put it back
    e2e.writeFixture("priority-then-undo", {
      reason: [
        { toolUse: { name: "set_ticket_priority", input: { ticketId: "T-1043", priority: "low" } } },
        { toolUse: { name: "lookup_ticket", input: { ticketId: "T-1043" } }, latencyMs: 3000 },
        { toolUse: { name: "lookup_ticket", input: { ticketId: "T-1043" } } },
        { text: "T-1043 is back at normal priority." },
      ],
      reconcile: [{ text: "{}" }],
    });
    const accepted = await e2e.client.submitGoal(
      triageGoal({
        objective: "Lower T-1043's priority, unless told otherwise.",
        tools: ["set_ticket_priority", "lookup_ticket"],
        successChecks: [
          {
            id: "priority-normal",
            description: "T-1043 reads normal priority",
            verify: {
              kind: "tool_result",
              tool: "lookup_ticket",
              expect: { status: "success", contains: '"priority":"normal"' },
            },
          },
        ],
        models: { default: "scripted:priority-then-undo" },
      }),
    );
    const called = Date.now() + 30_000;
    while (!e2e.stack.bedrock.calls().some((call) => call.goalId === accepted.goalId && call.call === 0)) {
      if (Date.now() > called) throw new Error("the first reason call never came");
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 50));
    }

    // Act
    await e2e.client.revise(accepted.goalId, {
      type: "corrective",
      content: "Do not change T-1043: undo it",
    });
    const { final } = await followGoal(e2e.client, accepted.goalId);

    // Assess: the compensate function ran with the call, and the ticket reads normal again
    expect(final.status).toBe("completed");
    const events = await allEvents(e2e.client, accepted.goalId);
    expect(events.find((event) => event.type === "compensation.completed")).toMatchObject({
      tool: "set_ticket_priority",
      action: "compensated",
      result: { ticketId: "T-1043", restoredPriority: "normal" },
    });
  });

  it("refuses a GoalSpec granting a tool the deployment does not have, naming tools.N", async () => {
    // Act
    const refusal = await e2e.client
      .submitGoal(triageGoal({ tools: ["lookup_ticket", "send_fax"] }))
      .catch((error: unknown) => error);

    // Assess
    expect(refusal).toBeInstanceOf(GoalLoopsApiError);
    const { status, body } = refusal as GoalLoopsApiError;
    expect(status).toBe(400);
    expect(body.issues).toEqual([
      { path: "tools.1", message: expect.stringContaining("'send_fax' is not a tool of this deployment") },
    ]);
  });
});
