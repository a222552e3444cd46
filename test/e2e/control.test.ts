import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GoalStatus } from "../../lambdas/core/goal/goal-record";
import { allEvents, type E2eStack, followGoal } from "./local-stack-harness";
import { sharedE2eStack } from "./shared-e2e-stack";

/** A goal whose model claims success three times (no progress → paused), then writes the poem. */
const PAUSING_FIXTURE = {
  reason: [
    { text: "Done! The poem is written." },
    { text: "The poem is complete." },
    { text: "As stated, the goal is done." },
    { toolUse: { name: "workspace_write", input: { path: "poem.md", content: "winter light on snow" } } },
    { text: "Done." },
  ],
  reconcile: [
    {
      text: JSON.stringify({
        summary: "Nothing was written yet; write about winter.",
        keep: [],
        discard: [],
        add: ["a winter poem"],
        discardEvidenceFor: [],
        restart: false,
      }),
    },
  ],
};

function poemGoal(model: string) {
  return {
    objective: "Write a short poem about autumn to poem.md",
    successChecks: [
      {
        id: "poem",
        description: "poem.md exists and mentions light",
        verify: { kind: "artifact", path: "poem.md", contains: "light" },
      },
    ],
    limits: { maxSteps: 20, maxNoProgressCycles: 3 },
    pattern: "react",
    models: { default: `scripted:${model}` },
  };
}

describe("steering goals end to end (revisions, resume, cancel over HTTP)", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await sharedE2eStack();
    e2e.writeFixture("control-pausing", PAUSING_FIXTURE);
    // Every turn writes a new file: progress each cycle, never the checked one; runs until cancelled.
    e2e.writeFixture("control-busy", {
      reason: Array.from({ length: 400 }, (_, index) => ({
        toolUse: { name: "workspace_write", input: { path: `notes/${index}.md`, content: `note ${index}` } },
      })),
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

  /** Polls `check` until it holds (the resume handler works asynchronously), or fails after the deadline. */
  async function eventually(check: () => Promise<boolean>) {
    const deadline = Date.now() + 30_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error("condition never held");
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
    }
  }

  /** Polls the goal until `done` holds for its snapshot, or fails after the deadline. */
  async function waitUntil(
    goalId: string,
    what: string,
    done: (status: GoalStatus, runId: string) => boolean,
  ) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const snapshot = await e2e.client.getGoal(goalId);
      if (done(snapshot.status, snapshot.runId)) return snapshot;
      if (Date.now() > deadline)
        throw new Error(`goal ${goalId} never ${what}: ${snapshot.status} ${snapshot.runId}`);
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
    }
  }

  it("pauses after three no-progress cycles; a redirect with its checks then a resume start r2 on revision 2", async () => {
    // Prepare: the goal pauses on its own
    const accepted = await e2e.client.submitGoal(poemGoal("control-pausing"));
    const paused = await followGoal(e2e.client, accepted.goalId);
    expect(paused.final).toMatchObject({ status: "paused", runId: "r1", noProgressCycles: 3 });

    // Act: a redirect stating its contract (queued while paused, applied at the next boundary), then resume
    const revision = await post(`/goals/${accepted.goalId}/revisions`, {
      type: "redirect",
      content: "Write a short poem about winter light to poem.md",
      reason: "the season changed",
      successChecks: poemGoal("control-pausing").successChecks,
    });
    await eventually(async () =>
      (await allEvents(e2e.client, accepted.goalId)).some((event) => event.type === "revision.queued"),
    );
    const resumed = await post(`/goals/${accepted.goalId}/resume`);
    await waitUntil(accepted.goalId, "resumed", (_status, runId) => runId === "r2");
    const { final } = await followGoal(e2e.client, accepted.goalId);

    // Assess
    expect(revision.status).toBe(202);
    expect(resumed.status).toBe(202);
    expect(final).toMatchObject({
      status: "completed",
      runId: "r2",
      revision: 2,
      objective: "Write a short poem about winter light to poem.md",
      satisfiedChecks: ["poem"],
    });
    const events = await allEvents(e2e.client, accepted.goalId);
    const types = events.map((event) => event.type);
    expect(types.indexOf("revision.queued")).toBeLessThan(types.indexOf("goal.resumed"));
    expect(types.indexOf("goal.resumed")).toBeLessThan(types.indexOf("revision.applied"));
    expect(events.find((event) => event.type === "revision.applied")).toMatchObject({
      revisionId: revision.body.revisionId,
      revision: 2,
      checksReplaced: true,
      contract: "replaced",
      reconcile: { summary: "Nothing was written yet; write about winter.", add: ["a winter poem"] },
    });
    expect(events.find((event) => event.type === "goal.resumed")).toMatchObject({
      runId: "r2",
      previousRunId: "r1",
    });
  });

  it("answers 409 to a resume of a goal that is not paused and to a cancel of a final one", async () => {
    // Prepare
    const accepted = await e2e.client.submitGoal(poemGoal("control-busy"));
    await waitUntil(accepted.goalId, "ran", (status) => status === "running");

    // Act
    const resume = await post(`/goals/${accepted.goalId}/resume`);
    await post(`/goals/${accepted.goalId}/cancel`, { reason: "test over" });
    await waitUntil(accepted.goalId, "got cancelled", (status) => status === "cancelled");
    const cancelAgain = await post(`/goals/${accepted.goalId}/cancel`);

    // Assess
    expect(resume).toMatchObject({
      status: 409,
      body: { error: { code: "InvalidStatus", message: "goal is running; resume needs paused" } },
    });
    expect(cancelAgain).toMatchObject({
      status: 409,
      body: {
        error: { code: "InvalidStatus", message: "goal is cancelled; cancel needs a goal that is not final" },
      },
    });
  });

  it("cancels a running goal and stops its execution", async () => {
    // Prepare
    const accepted = await e2e.client.submitGoal(poemGoal("control-busy"));
    const running = await waitUntil(accepted.goalId, "ran", (status) => status === "running");

    // Act
    const cancel = await post(`/goals/${accepted.goalId}/cancel`, { reason: "not needed any more" });
    const cancelled = await waitUntil(accepted.goalId, "got cancelled", (status) => status === "cancelled");

    // Assess
    expect(cancel.status).toBe(202);
    expect(cancelled.stopReason).toMatchObject({ kind: "cancelled", message: "not needed any more" });
    const deadline = Date.now() + 10_000;
    let executions = e2e.stack.executions
      .list()
      .filter((execution) => execution.name.startsWith(accepted.goalId));
    while (executions.some((execution) => execution.status === "RUNNING") && Date.now() < deadline) {
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
      executions = e2e.stack.executions
        .list()
        .filter((execution) => execution.name.startsWith(accepted.goalId));
    }
    expect(executions.map((execution) => execution.status)).not.toContain("RUNNING");
    const cancelledRun = executions.find(
      (execution) => execution.name === `${accepted.goalId}-${cancelled.runId}`,
    );
    // Stopped by the cancel (ABORTED), or ended by its own next step, which found the goal cancelled
    // before StopExecution arrived (SUCCEEDED): which one wins is a race; neither fails the run.
    expect(["ABORTED", "SUCCEEDED"]).toContain(cancelledRun?.status);
    // Either way no step ran after the cancel.
    expect((await e2e.client.getGoal(accepted.goalId)).steps).toBe(cancelled.steps);
    expect(running.runId).toMatch(/^r\d+$/);
  });
});
