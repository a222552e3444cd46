import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { GoalLoopsApiError, GoalLoopsClient } from "../../../lib/client/index";

interface Seen {
  method: string;
  url: string;
  body: string;
}

/** A one-route HTTP server answering `status` and `body` to every request, recording what it got. */
async function serve(
  status: number,
  body: unknown,
): Promise<{ client: GoalLoopsClient; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    request.on("end", () => {
      seen.push({ method: request.method ?? "", url: request.url ?? "", body: text });
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { client: new GoalLoopsClient(`http://127.0.0.1:${port}`), seen, server };
}

const APPROVAL = {
  approvalId: "ap-1",
  goalId: "g-1",
  runId: "r1",
  status: "approved",
  action: { kind: "tool", summary: "notify ops" },
  revision: 1,
  requestedAt: "2026-11-29T18:00:00.000Z",
  expiresAt: "2026-11-30T18:00:00.000Z",
};

describe("GoalLoopsClient control and approval calls", () => {
  let server: Server | undefined;

  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });

  it("posts a decision with its comment and returns the approval", async () => {
    // Prepare
    const fake = await serve(200, { approval: APPROVAL });
    server = fake.server;

    // Act
    const approval = await fake.client.decideApproval("ap-1", "approve", "ship it");

    // Assess
    expect(approval).toMatchObject({ approvalId: "ap-1", status: "approved" });
    expect(fake.seen).toEqual([
      {
        method: "POST",
        url: "/approvals/ap-1",
        body: JSON.stringify({ decision: "approve", comment: "ship it" }),
      },
    ]);
  });

  it("turns a 409 error body into a GoalLoopsApiError with its status, code and message", async () => {
    // Prepare
    const fake = await serve(409, {
      error: { code: "ApprovalAlreadyDecided", message: "Approval 'ap-1' was already approved" },
    });
    server = fake.server;

    // Act
    const error = await fake.client.decideApproval("ap-1", "reject").catch((caught: unknown) => caught);

    // Assess
    expect(error).toBeInstanceOf(GoalLoopsApiError);
    expect(error).toMatchObject({
      status: 409,
      body: { code: "ApprovalAlreadyDecided" },
      message: "409 ApprovalAlreadyDecided: Approval 'ap-1' was already approved",
    });
  });

  it("lists approvals by status and refuses an answer that is not an approval list", async () => {
    // Prepare
    const good = await serve(200, { items: [{ ...APPROVAL, status: "pending" }] });
    server = good.server;
    const listed = await good.client.listApprovals("pending");
    await new Promise((resolve) => good.server.close(resolve));
    const bad = await serve(200, { items: [{ approvalId: "ap-1" }] });
    server = bad.server;

    // Act
    const refusal = await bad.client.listApprovals("pending").catch((caught: unknown) => caught);

    // Assess
    expect(good.seen[0]?.url).toBe("/approvals?status=pending");
    expect(listed).toEqual([{ ...APPROVAL, status: "pending" }]);
    expect(refusal).toBeInstanceOf(Error);
    expect((refusal as Error).message).toMatch(/Unexpected answer from GET \/approvals/);
  });

  it("sends revisions, resume and cancel to the goal's routes", async () => {
    // Prepare
    const fake = await serve(202, { goalId: "g-1", requested: "cancel", revisionId: "rv-1" });
    server = fake.server;

    // Act
    const revision = await fake.client.revise("g-1", {
      type: "redirect",
      content: "winter",
      reason: "season",
    });
    await fake.client.resume("g-1");
    await fake.client.cancel("g-1", "done");
    await fake.client.cancel("g-1");

    // Assess
    expect(revision).toEqual({ goalId: "g-1", revisionId: "rv-1" });
    expect(fake.seen).toEqual([
      {
        method: "POST",
        url: "/goals/g-1/revisions",
        body: JSON.stringify({ type: "redirect", content: "winter", reason: "season" }),
      },
      { method: "POST", url: "/goals/g-1/resume", body: "" },
      { method: "POST", url: "/goals/g-1/cancel", body: JSON.stringify({ reason: "done" }) },
      { method: "POST", url: "/goals/g-1/cancel", body: "" },
    ]);
  });

  it("reads the caller's tenant and posts an operator's limits to the tenant's route", async () => {
    // Prepare
    const me = {
      tenantId: "team-a",
      caller: "jwt:alice",
      via: "jwt",
      admin: false,
      limits: { concurrentGoals: 2 },
      usage: { runningGoals: 1, concurrentGoals: 1, spendTodayUsd: 0.25, day: "2026-12-07" },
    };
    const fake = await serve(200, me);
    server = fake.server;

    // Act
    const read = await fake.client.myTenant();
    const set = await fake.client.setTenantLimits("team-a", { startsPerMinute: 30 });

    // Assess: each answer parsed with its operation's schema (fields it does not name are dropped)
    expect(read).toEqual(me);
    expect(set).toEqual({ tenantId: "team-a", limits: { concurrentGoals: 2 } });
    expect(fake.seen).toEqual([
      { method: "GET", url: "/tenants/me", body: "" },
      { method: "POST", url: "/tenants/team-a/limits", body: JSON.stringify({ startsPerMinute: 30 }) },
    ]);
  });
});
