import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allEvents, type E2eStack, followGoal } from "./local-stack-harness";
import { sharedE2eStack } from "./shared-e2e-stack";

/** How long each scripted reason call takes: a window in which a human's pause arrives mid-call. */
const CALL_MS = 400;

/** Notes first (progress, never the checked file), then the poem on turn `poemAt`; every call slow. */
function notesThenPoem(poemAt: number) {
  return {
    reason: [
      ...Array.from({ length: poemAt }, (_, index) => ({
        toolUse: { name: "workspace_write", input: { path: `notes/${index}.md`, content: `note ${index}` } },
        latencyMs: CALL_MS,
      })),
      {
        toolUse: { name: "workspace_write", input: { path: "poem.md", content: "winter light on snow" } },
        latencyMs: CALL_MS,
      },
    ],
  };
}

function poemGoal(model: string, tools?: string[]) {
  return {
    objective: "Write a short poem about winter to poem.md",
    successChecks: [
      {
        id: "poem",
        description: "poem.md exists and mentions light",
        verify: { kind: "artifact", path: "poem.md", contains: "light" },
      },
    ],
    // Notes name no check: no progress, so the no-progress pause must not come first.
    limits: { maxSteps: 30, maxNoProgressCycles: 10 },
    pattern: "react",
    models: { default: `scripted:${model}` },
    ...(tools === undefined ? {} : { tools }),
  };
}

describe("a human pause end to end (POST /goals/{goalId}/pause, then resume, over HTTP)", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await sharedE2eStack();
    e2e.writeFixture("pause-notes-then-poem", notesThenPoem(5));
    e2e.writeFixture("pause-twice-then-cancel", notesThenPoem(200));
    e2e.writeFixture("pause-withdrawn", notesThenPoem(4));
    // The poem is written by the first turn; a slow judge call is in flight when the pause arrives.
    e2e.writeFixture("pause-while-completing", {
      reason: [
        { toolUse: { name: "workspace_write", input: { path: "poem.md", content: "winter light on snow" } } },
      ],
      judge: [{ text: "PASS: the poem is about winter light", latencyMs: 1500 }],
    });
    // An irreversible notify waits for approval; the poem comes on the turn after it.
    e2e.writeFixture("pause-while-waiting", {
      reason: [
        { toolUse: { name: "notify", input: { channel: "ops", message: "the poem is on its way" } } },
        { toolUse: { name: "workspace_write", input: { path: "poem.md", content: "winter light on snow" } } },
      ],
    });
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  async function post(path: string, body?: unknown) {
    const response = await fetch(`${e2e.stack.apiUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  /** Waits on the goal's events (long poll, no fixed sleep) until one of `type` arrives, or fails at the deadline. */
  async function eventOf(goalId: string, type: string, deadlineMs = 30_000) {
    const deadline = Date.now() + deadlineMs;
    let after = 0;
    for (;;) {
      const response = await fetch(
        `${e2e.stack.apiUrl}/goals/${encodeURIComponent(goalId)}/events?after=${after}&waitSeconds=5`,
      );
      const page = (await response.json()) as { items: { type: string }[]; nextSeq: number };
      const found = page.items.find((event) => event.type === type);
      if (found) return found;
      after = page.nextSeq;
      if (Date.now() > deadline) throw new Error(`goal ${goalId} never recorded ${type}`);
    }
  }

  async function typesOf(goalId: string) {
    return (await allEvents(e2e.client, goalId)).map((event) => event.type);
  }

  it("pauses a running goal at the next step boundary, keeps it, and a resume finishes it with no call paid twice", async () => {
    // Prepare: the goal runs; its first step's tool call is done, the next reason call is in flight
    const accepted = await e2e.client.submitGoal(poemGoal("pause-notes-then-poem"));
    await eventOf(accepted.goalId, "tool.called");

    // Act: pause, wait for it to take effect, then resume
    const paused = await post(`/goals/${accepted.goalId}/pause`, { reason: "checking the notes" });
    const { final: atPause } = await followGoal(e2e.client, accepted.goalId);
    const resumed = await post(`/goals/${accepted.goalId}/resume`);
    await eventOf(accepted.goalId, "goal.resumed");
    const { final } = await followGoal(e2e.client, accepted.goalId);

    // Assess
    expect(paused).toEqual({ status: 202, body: { goalId: accepted.goalId, requested: "pause" } });
    expect(atPause).toMatchObject({
      status: "paused",
      activeTask: null,
      stopReason: { kind: "human", message: "checking the notes" },
    });
    expect(atPause.pauseRequested).toBeUndefined();
    expect(resumed.status).toBe(202);
    // Six reason turns in the fixture: a seventh call (one paid twice) would exhaust it and fail the goal.
    expect(final).toMatchObject({ status: "completed", runId: "r2", satisfiedChecks: ["poem"], steps: 6 });
    expect(final.usageByRole.reason?.modelCalls).toBe(6);
    const events = await allEvents(e2e.client, accepted.goalId);
    expect(events.find((event) => event.type === "goal.pause_requested")).toMatchObject({
      reason: "checking the notes",
      channel: "api",
    });
    expect(events.find((event) => event.type === "goal.paused")).toMatchObject({
      by: "human",
      reason: "checking the notes",
    });
    expect(events.find((event) => event.type === "goal.resumed")).toMatchObject({
      how: "takeover",
      previousRunId: "r1",
    });
  }, 120_000);

  it("answers a second pause 202 without a second request, and a cancel after it still cancels", async () => {
    // Prepare
    const accepted = await e2e.client.submitGoal(poemGoal("pause-twice-then-cancel"));
    await eventOf(accepted.goalId, "tool.called");

    // Act
    const first = await post(`/goals/${accepted.goalId}/pause`);
    const second = await post(`/goals/${accepted.goalId}/pause`);
    await e2e.stack.events.idle();
    const cancel = await post(`/goals/${accepted.goalId}/cancel`, { reason: "not needed" });
    await eventOf(accepted.goalId, "goal.cancelled");
    const cancelled = await e2e.client.getGoal(accepted.goalId);
    const pauseAfter = await post(`/goals/${accepted.goalId}/pause`);

    // Assess
    expect([first.status, second.status, cancel.status]).toEqual([202, 202, 202]);
    expect(cancelled).toMatchObject({ status: "cancelled", stopReason: { kind: "cancelled" } });
    expect(cancelled.pauseRequested).toBeUndefined();
    expect((await typesOf(accepted.goalId)).filter((type) => type === "goal.pause_requested")).toHaveLength(
      1,
    );
    expect(pauseAfter).toMatchObject({
      status: 409,
      body: {
        error: { code: "InvalidStatus", message: "goal is cancelled; pause needs running or waiting" },
      },
    });
  }, 120_000);

  it("a resume right after a pause never leaves the goal stuck: withdrawn, or paused and resumed", async () => {
    // Prepare
    const accepted = await e2e.client.submitGoal(poemGoal("pause-withdrawn"));
    await eventOf(accepted.goalId, "tool.called");

    // Act: resume before the run can have parked (which one the resume handler sees first is a race)
    const pause = await post(`/goals/${accepted.goalId}/pause`);
    await e2e.stack.events.idle();
    const resume = await post(`/goals/${accepted.goalId}/resume`);
    await e2e.stack.events.idle();
    const { final } = await followGoal(e2e.client, accepted.goalId);

    // Assess
    expect([pause.status, resume.status]).toEqual([202, 202]);
    expect(final).toMatchObject({ status: "completed", satisfiedChecks: ["poem"] });
    expect(final.usageByRole.reason?.modelCalls).toBe(5);
    const types = await typesOf(accepted.goalId);
    expect(types.includes("goal.pause_withdrawn") || types.includes("goal.resumed")).toBe(true);
  }, 120_000);

  it("a pause that races the step completing the goal leaves it completed", async () => {
    // Prepare: the poem is written; the judge call of the verify step that completes the goal is in flight
    const spec = {
      ...poemGoal("pause-while-completing"),
      successChecks: [
        {
          id: "poem",
          description: "poem.md is a poem about winter light",
          verify: { kind: "model_judge", rubric: "a short poem about winter light" },
        },
      ],
    };
    const accepted = await e2e.client.submitGoal(spec);
    await eventOf(accepted.goalId, "tool.called");

    // Act
    const pause = await post(`/goals/${accepted.goalId}/pause`);
    await e2e.stack.events.idle();
    const { final } = await followGoal(e2e.client, accepted.goalId);
    const resume = await post(`/goals/${accepted.goalId}/resume`);

    // Assess
    expect(pause.status).toBe(202);
    expect(final).toMatchObject({ status: "completed", satisfiedChecks: ["poem"] });
    expect(final.pauseRequested).toBeUndefined();
    expect(await typesOf(accepted.goalId)).not.toContain("goal.paused");
    expect(resume).toMatchObject({ status: 409, body: { error: { code: "InvalidStatus" } } });
  }, 120_000);

  it("a waiting goal keeps its approval: decided once, its call runs once, then it pauses; resume completes it", async () => {
    // Prepare: the goal waits for approval of an irreversible notify
    const accepted = await e2e.client.submitGoal(
      poemGoal("pause-while-waiting", ["notify", "workspace_write"]),
    );
    const { final: waiting } = await followGoal(e2e.client, accepted.goalId);
    expect(waiting).toMatchObject({ status: "waiting", waitingFor: { kind: "approval" } });
    const approvalId = waiting.waitingFor?.approvalId ?? "";

    // Act: pause while it waits, then approve, then resume once it paused
    const pause = await post(`/goals/${accepted.goalId}/pause`, { reason: "after the notice" });
    await e2e.stack.events.idle();
    const stillWaiting = await e2e.client.getGoal(accepted.goalId);
    const decided = await post(`/approvals/${approvalId}`, { decision: "approve" });
    await eventOf(accepted.goalId, "goal.paused");
    const paused = await e2e.client.getGoal(accepted.goalId);
    const resume = await post(`/goals/${accepted.goalId}/resume`);
    await eventOf(accepted.goalId, "goal.resumed");
    const { final } = await followGoal(e2e.client, accepted.goalId);

    // Assess
    expect(pause.status).toBe(202);
    expect(stillWaiting).toMatchObject({
      status: "waiting",
      waitingFor: { approvalId },
      pauseRequested: { reason: "after the notice" },
    });
    expect(decided.status).toBe(200);
    expect(paused).toMatchObject({ status: "paused", stopReason: { kind: "human" } });
    expect(resume.status).toBe(202);
    expect(final).toMatchObject({ status: "completed", satisfiedChecks: ["poem"] });
    const notices = (await e2e.stack.readOutbox()).filter(
      (entry) => entry.goalId === accepted.goalId && entry.channel === "ops",
    );
    expect(notices).toEqual([expect.objectContaining({ message: "the poem is on its way" })]);
  }, 120_000);
});
