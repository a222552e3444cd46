import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GoalSnapshot } from "../../lambdas/core/goal/goal-record";
import { allEvents, type E2eStack, followGoal } from "./local-stack-harness";
import { sharedE2eStack } from "./shared-e2e-stack";

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly body: Record<string, unknown>;
}

interface ApprovalItem {
  readonly approvalId: string;
  readonly goalId: string;
  readonly status: string;
  readonly action: { readonly kind: string; readonly summary: string };
}

/** A goal that must tell ops through `notify` (irreversible, granted, not pre-authorized). */
function notifyGoal(model: string, check: "notified" | "noted" = "notified") {
  return {
    objective: "Tell ops about the release",
    successChecks: [
      check === "notified"
        ? {
            id: "ops-told",
            description: "notify succeeded",
            verify: { kind: "tool_result", tool: "notify", expect: { status: "success" } },
          }
        : {
            id: "release-noted",
            description: "release-note.md records the release",
            verify: { kind: "artifact", path: "release-note.md", contains: "release 2.2" },
          },
    ],
    tools: check === "notified" ? ["notify"] : ["notify", "workspace_write"],
    limits: { maxSteps: 10 },
    pattern: "react",
    models: { default: `scripted:${model}` },
  };
}

describe("approvals end to end (GET /approvals, POST /approvals/{id} over HTTP)", () => {
  let e2e: E2eStack;
  /** Every API answer's text, for the task-token grep. */
  const answers: string[] = [];

  beforeAll(async () => {
    e2e = await sharedE2eStack();
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  async function send(method: "GET" | "POST", path: string, body?: unknown): Promise<Answer> {
    const response = await fetch(`${e2e.stack.apiUrl}${path}`, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    answers.push(text);
    return { status: response.status, text, body: JSON.parse(text) as Record<string, unknown> };
  }

  async function getGoal(goalId: string): Promise<GoalSnapshot> {
    const answer = await send("GET", `/goals/${goalId}`);
    return answer.body as unknown as GoalSnapshot;
  }

  async function pendingApprovals(): Promise<ApprovalItem[]> {
    const answer = await send("GET", "/approvals?status=pending");
    expect(answer.status).toBe(200);
    return answer.body.items as ApprovalItem[];
  }

  /** Submits a goal, follows it until it waits, and returns it with its pending approval. */
  async function waitingGoal(spec: unknown) {
    const accepted = await e2e.client.submitGoal(spec);
    const { final } = await followGoal(e2e.client, accepted.goalId);
    expect(final).toMatchObject({ status: "waiting", waitingFor: { kind: "approval" } });
    const approvalId = final.waitingFor?.approvalId ?? "";
    const approval = (await pendingApprovals()).find((item) => item.approvalId === approvalId);
    expect(approval).toMatchObject({ goalId: accepted.goalId, status: "pending", action: { kind: "tool" } });
    return { goalId: accepted.goalId, approvalId };
  }

  /** Waits for the resume handler (EventBridge deliveries), then follows the goal past its wait on `approvalId`. */
  async function afterWake(goalId: string, approvalId: string) {
    await e2e.stack.events.idle();
    const deadline = Date.now() + 30_000;
    for (;;) {
      const snapshot = await e2e.client.getGoal(goalId);
      if (snapshot.status !== "waiting" || snapshot.waitingFor?.approvalId !== approvalId) break;
      if (Date.now() > deadline) throw new Error(`goal ${goalId} still waits on ${approvalId}`);
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
    }
    return followGoal(e2e.client, goalId);
  }

  async function notifiesOf(goalId: string) {
    return (await e2e.stack.readOutbox()).filter(
      (entry) => entry.goalId === goalId && entry.channel === "ops",
    );
  }

  async function eventTypes(goalId: string) {
    return (await allEvents(e2e.client, goalId)).map((event) => event.type);
  }

  it("approve: the notify runs exactly once and the goal completes", async () => {
    // Prepare
    const { goalId, approvalId } = await waitingGoal(notifyGoal("notify-needs-approval"));
    expect(await notifiesOf(goalId)).toEqual([]);

    // Act
    const decided = await send("POST", `/approvals/${approvalId}`, {
      decision: "approve",
      comment: "ship it",
    });
    const { final } = await afterWake(goalId, approvalId);

    // Assess
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({
      approval: {
        approvalId,
        goalId,
        status: "approved",
        decision: { decision: "approve", comment: "ship it" },
      },
    });
    expect(final).toMatchObject({
      status: "completed",
      lastEvidence: { kind: "tool_result", tool: "notify" },
    });
    expect(await notifiesOf(goalId)).toEqual([expect.objectContaining({ message: "release 2.1 is out" })]);
    expect((await pendingApprovals()).map((item) => item.approvalId)).not.toContain(approvalId);
  }, 120_000);

  it("reject: the goal records RejectedByHuman for the call and completes without it", async () => {
    // Prepare
    const { goalId, approvalId } = await waitingGoal(notifyGoal("notify-rejected-then-note", "noted"));

    // Act
    const decided = await send("POST", `/approvals/${approvalId}`, {
      decision: "reject",
      comment: "not today",
    });
    const { final } = await afterWake(goalId, approvalId);

    // Assess
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ approval: { status: "rejected" } });
    expect(final).toMatchObject({ status: "completed", satisfiedChecks: ["release-noted"] });
    expect(await notifiesOf(goalId)).toEqual([]);
    const events = await allEvents(e2e.client, goalId);
    expect(events.find((event) => event.type === "approval.decided")).toMatchObject({ approvalId });
    expect(events.filter((event) => event.type === "tool.error")).toEqual([
      expect.objectContaining({ name: "notify", errorName: "RejectedByHuman" }),
    ]);
    expect(events.find((event) => event.type === "gate.decided")).toMatchObject({
      approvalId,
      outcome: "rejected",
    });
  }, 120_000);

  it("20 concurrent decisions: exactly one 200, nineteen 409, one approval.decided, one completion", async () => {
    // Prepare
    const { goalId, approvalId } = await waitingGoal(notifyGoal("notify-needs-approval"));

    // Act
    const answersOf20 = await Promise.all(
      Array.from({ length: 20 }, () => send("POST", `/approvals/${approvalId}`, { decision: "approve" })),
    );
    const { final } = await afterWake(goalId, approvalId);
    await e2e.stack.events.idle();

    // Assess
    const statuses = answersOf20.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, ...Array.from({ length: 19 }, () => 409)]);
    for (const answer of answersOf20.filter((each) => each.status === 409)) {
      expect(answer.body).toMatchObject({ error: { code: "ApprovalAlreadyDecided" } });
    }
    expect(final.status).toBe("completed");
    const types = await eventTypes(goalId);
    expect(types.filter((type) => type === "approval.decided")).toHaveLength(1);
    expect(types.filter((type) => type === "goal.completed")).toHaveLength(1);
    expect(await notifiesOf(goalId)).toHaveLength(1);
  }, 120_000);

  it("while waiting for A: another approval's decision, a revision and a resume do not wake it; A's decision does; no token anywhere", async () => {
    // Prepare: two goals waiting, each on its own approval
    const a = await waitingGoal(notifyGoal("notify-revised-while-waiting"));
    const b = await waitingGoal(notifyGoal("notify-needs-approval"));
    const tokens = e2e.stack.executions.tokens.pending().map((task) => task.token);
    expect(tokens.length).toBeGreaterThanOrEqual(2);

    // Act: the three inputs that must not wake A
    const other = await send("POST", `/approvals/${b.approvalId}`, { decision: "approve" });
    const revision = await send("POST", `/goals/${a.goalId}/revisions`, {
      type: "add_constraint",
      content: "Mention the release date",
    });
    const resume = await send("POST", `/goals/${a.goalId}/resume`);
    await e2e.stack.events.idle();
    const stillWaiting = await getGoal(a.goalId);
    const pendingNow = await pendingApprovals();

    // Assess: A still waits on A
    expect(other.status).toBe(200);
    expect(revision.status).toBe(202);
    expect(resume).toMatchObject({ status: 409, body: { error: { code: "InvalidStatus" } } });
    expect(stillWaiting).toMatchObject({ status: "waiting", waitingFor: { approvalId: a.approvalId } });
    expect(pendingNow.map((item) => item.approvalId)).toContain(a.approvalId);
    expect(await eventTypes(a.goalId)).not.toContain("approval.decided");

    // Act: A's own decision wakes it
    const decided = await send("POST", `/approvals/${a.approvalId}`, { decision: "approve" });
    const woken = await afterWake(a.goalId, a.approvalId);
    const bDone = await afterWake(b.goalId, b.approvalId);

    // Assess
    expect(decided.status).toBe(200);
    expect(woken.final.status).not.toBe("waiting");
    const aTypes = await eventTypes(a.goalId);
    expect(aTypes.filter((type) => type === "approval.decided")).toHaveLength(1);
    expect(aTypes).toContain("revision.queued");
    expect(bDone.final.status).toBe("completed");

    // Assess: no task token in any API answer, outbox message, goal event or log line
    const outbox = JSON.stringify(await e2e.stack.readOutbox());
    const events = JSON.stringify([
      ...(await allEvents(e2e.client, a.goalId)),
      ...(await allEvents(e2e.client, b.goalId)),
    ]);
    for (const token of tokens) {
      for (const answer of answers) expect(answer).not.toContain(token);
      expect(outbox).not.toContain(token);
      expect(events).not.toContain(token);
      expect(e2e.logLines.filter((line) => line.includes(token))).toEqual([]);
    }
    expect(e2e.logLines.length).toBeGreaterThan(0);
    expect(answers.join("\n")).not.toContain("taskToken");
  }, 120_000);

  it("a redirect without checks waits for a human to confirm the proposed contract, and never completes on the old one", async () => {
    // Prepare: the run is parked on its approval to tell ops, mid-run
    const { goalId, approvalId } = await waitingGoal(notifyGoal("redirect-mid-run"));

    // Act: the redirect queues (it does not wake the goal); the decision lets the run go on
    const redirect = await send("POST", `/goals/${goalId}/revisions`, {
      type: "redirect",
      content: "Tell the support team about the release",
      reason: "support owns release comms now",
    });
    await e2e.stack.events.idle();
    const queued = await getGoal(goalId);
    await send("POST", `/approvals/${approvalId}`, { decision: "approve" });
    const { final: unconfirmed } = await afterWake(goalId, approvalId);
    const contractApproval = (await pendingApprovals()).find((item) => item.goalId === goalId);

    // Assess: ops were told, but that proves nothing now; the proposed checks wait for a human
    expect(redirect.status).toBe(202);
    expect(queued).toMatchObject({ status: "waiting", revision: 1 });
    expect(unconfirmed).toMatchObject({
      status: "waiting",
      revision: 2,
      objective: "Tell the support team about the release",
      satisfiedChecks: [],
      waitingFor: { kind: "approval" },
    });
    expect(contractApproval).toMatchObject({ action: { kind: "contract" } });
    expect(contractApproval?.action.summary).toContain("support-told");
    const applied = (await allEvents(e2e.client, goalId)).find((event) => event.type === "revision.applied");
    expect(applied).toMatchObject({
      revision: 2,
      contract: "awaiting_confirmation",
      proposedChecks: ["support-told"],
    });
    expect(JSON.stringify(applied)).toContain("support must hear about the release");

    // Act: a human confirms the contract, then approves telling support
    await send("POST", `/approvals/${contractApproval?.approvalId}`, { decision: "approve" });
    const { final: toldSupport } = await afterWake(goalId, contractApproval?.approvalId ?? "");
    const supportApproval = toldSupport.waitingFor?.approvalId ?? "";
    await send("POST", `/approvals/${supportApproval}`, { decision: "approve" });
    const { final } = await afterWake(goalId, supportApproval);

    // Assess: completed on the confirmed contract, by the notify made after the redirect
    expect(final).toMatchObject({
      status: "completed",
      revision: 3,
      satisfiedChecks: ["support-told"],
      progress: { overall: 1, checks: { "support-told": "met" } },
    });
    const evidence = (await allEvents(e2e.client, goalId)).filter(
      (event) => event.type === "evidence.recorded",
    );
    expect(evidence.map((event) => event.checkId)).toEqual(["support-told"]);
    expect(
      (await e2e.stack.readOutbox()).filter(
        (entry) => entry.goalId === goalId && entry.channel === "support",
      ),
    ).toHaveLength(1);
  }, 120_000);

  it("a redirect stating its checks through the /goal directive completes on the new ones only", async () => {
    // Prepare
    const { goalId, approvalId } = await waitingGoal(notifyGoal("redirect-with-checks"));

    // Act: the directive states the new contract; the pending notify to ops runs, then support is told
    const directive = await send("POST", `/goals/${goalId}/directive`, {
      text: "/goal redirect Tell support about the release --check support-told: tool_result notify success contains support",
    });
    await e2e.stack.events.idle();
    await send("POST", `/approvals/${approvalId}`, { decision: "approve" });
    const { final: toSupport } = await afterWake(goalId, approvalId);
    const supportApproval = toSupport.waitingFor?.approvalId ?? "";
    await send("POST", `/approvals/${supportApproval}`, { decision: "approve" });
    const { final } = await afterWake(goalId, supportApproval);

    // Assess
    expect(directive.status).toBe(202);
    expect(toSupport).toMatchObject({ status: "waiting", revision: 2, satisfiedChecks: [] });
    expect(final).toMatchObject({ status: "completed", revision: 2, satisfiedChecks: ["support-told"] });
    const applied = (await allEvents(e2e.client, goalId)).find((event) => event.type === "revision.applied");
    expect(applied).toMatchObject({ contract: "replaced", checksReplaced: true, evidenceDiscarded: [] });
  }, 120_000);
});
