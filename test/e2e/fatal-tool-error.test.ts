import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allEvents, type E2eStack, followGoal, startE2eStack } from "./local-stack-harness";

/** A ticket service that refuses every request with 403 AccessDenied, and counts them. */
function startForbiddingServer(): Promise<{ server: Server; url: string; requests: () => number }> {
  let count = 0;
  const server = createServer((_request, response) => {
    count += 1;
    response.writeHead(403, { "content-type": "application/json" });
    response.end('{"error":"AccessDenied","message":"no access to ticket 42"}');
  });
  return new Promise((resolveStarted) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolveStarted({ server, url: `http://127.0.0.1:${port}/tickets/42`, requests: () => count });
    }),
  );
}

describe("a tool answering AccessDenied on the local stack (react)", () => {
  let e2e: E2eStack;
  let service: Awaited<ReturnType<typeof startForbiddingServer>>;

  beforeAll(async () => {
    service = await startForbiddingServer();
    // The stack's functions may reach the service: http_request's allow-list, as a deployer sets it.
    e2e = await startE2eStack({ environment: { HTTP_ALLOWED_HOSTS: "127.0.0.1" } });
    e2e.writeFixture("forbidden-ticket", {
      reason: [
        { toolUse: { name: "http_request", input: { method: "GET", url: service.url } } },
        {
          toolUse: { name: "workspace_write", input: { path: "note.md", content: "no ticket access; done" } },
        },
      ],
    });
  });

  afterAll(async () => {
    await e2e?.stop();
    service?.server.close();
  });

  it("waits for a human decision after the one call, then goes on without it once approved", async () => {
    // Prepare
    const accepted = await e2e.client.submitGoal({
      objective: "Read ticket 42, or note why not",
      successChecks: [
        {
          id: "note",
          description: "a note is written",
          verify: { kind: "artifact", path: "note.md", contains: "done" },
        },
      ],
      tools: ["http_request", "workspace_write"],
      pattern: "react",
      models: { default: "scripted:forbidden-ticket" },
    });

    // Act
    const waiting = (await followGoal(e2e.client, accepted.goalId)).final;
    const [approval] = (await e2e.client.listApprovals("pending")).filter(
      (pending) => pending.goalId === accepted.goalId,
    );
    if (!approval) throw new Error("no decision was asked for");
    await e2e.client.decideApproval(approval.approvalId, "approve");
    let final = await e2e.client.getGoal(accepted.goalId);
    for (const deadline = Date.now() + 30_000; final.status === "waiting" && Date.now() < deadline; ) {
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 50));
      final = await e2e.client.getGoal(accepted.goalId);
    }
    final = (await followGoal(e2e.client, accepted.goalId)).final;

    // Assess
    expect(waiting).toMatchObject({ status: "waiting", waitingFor: { kind: "decision" }, steps: 1 });
    expect(approval.action).toMatchObject({ kind: "decision" });
    expect(approval.action.summary).toContain(
      "http_request failed in step-1 and cannot be retried (HttpStatus403",
    );
    expect(service.requests()).toBe(1);
    expect(final.status).toBe("completed");
    const types = (await allEvents(e2e.client, accepted.goalId)).map((event) => event.type);
    expect(types.filter((type) => type === "decision.needed")).toHaveLength(1);
  }, 60_000);
});
