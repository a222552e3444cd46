import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { DynamoDbWorkspace } from "../../lambdas/adapters/dynamodb/dynamodb-workspace";
import { FAULT_INJECTION_ENV } from "../../lambdas/adapters/shared/fault-injection";
import type { GoalSnapshot } from "../../lambdas/core/goal/goal-record";
import { checkInvariants } from "../../lambdas/core/goal/invariants";
import { localStoreClient, payloadSettingsOf } from "../../lib/local/storage/local-store-client";
import { allEvents, type E2eStack, startE2eStack } from "./local-stack-harness";
import { sharedE2eStack } from "./shared-e2e-stack";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const write = (path: string, content: string) => ({ name: "workspace_write", input: { path, content } });
/** A gated read (`approval.requireFor`): the goal waits there, so the test looks at a still workspace. */
const HOLD = { toolUse: { name: "workspace_read", input: { path: "a.md" } } };

/**
 * Four steps of writes (a notify among them), then a gated read the goal waits on; after the
 * corrective revision's saga, another gated read to wait on while the test looks.
 */
const FOUR_STEPS = {
  reason: [
    { toolUse: write("a.md", "alpha, first draft") },
    { toolUse: write("a.md", "alpha, second draft") },
    {
      toolUse: [
        write("c.md", "created at step 3"),
        { name: "notify", input: { channel: "team", message: "step 3 wrote c.md" } },
      ],
    },
    { toolUse: [write("a.md", "alpha, third draft"), write("b.md", "created at step 4")] },
    HOLD,
    HOLD,
  ],
  reconcile: [
    {
      text: JSON.stringify({
        summary: "Steps 2 to 4 are undone; go on from the first draft.",
        keep: ["a.md first draft"],
        discard: ["steps 2-4"],
        add: [],
        discardEvidenceFor: [],
        restart: false,
      }),
    },
  ],
};

const FOUR_STEP_GOAL = {
  objective: "Draft a.md, b.md and c.md, telling the team along the way",
  successChecks: [
    { id: "final", description: "final.md exists", verify: { kind: "artifact", path: "final.md" } },
  ],
  tools: ["workspace_write", "workspace_read", "notify"],
  approval: { preAuthorized: ["notify"], requireFor: ["workspace_read"] },
  limits: { maxSteps: 20, maxNoProgressCycles: 20 },
  pattern: "react",
  models: { default: "scripted:compensate-four-steps" },
};

describe("compensation sagas end to end (corrective target, crash mid-saga, abandoned plans)", () => {
  let e2e: E2eStack | undefined;

  afterEach(async () => {
    await e2e?.stop();
    e2e = undefined;
  }, 120_000);

  function workspaceOf(stack: E2eStack): DynamoDbWorkspace {
    const { model, endpoints } = stack.stack;
    const client = localStoreClient(
      { dynamodb: endpoints.dynamodb, s3: endpoints.s3 },
      payloadSettingsOf(model),
    );
    return new DynamoDbWorkspace({ client, tableName: model.tables[0]?.tableName ?? "" });
  }

  async function until(stack: E2eStack, goalId: string, done: (snapshot: GoalSnapshot) => boolean) {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const snapshot = await stack.client.getGoal(goalId);
      expect(checkInvariants(snapshot)).toEqual([]);
      if (done(snapshot)) return snapshot;
      if (Date.now() > deadline) throw new Error(`goal ${goalId} is still ${snapshot.status}`);
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
    }
  }

  async function eventually(check: () => Promise<boolean>) {
    const deadline = Date.now() + 30_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error("condition never held");
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
    }
  }

  /** The approval the goal waits on now, decided `approve`. */
  async function approveWait(stack: E2eStack, snapshot: GoalSnapshot) {
    const approvalId = snapshot.waitingFor?.approvalId ?? "";
    await stack.client.decideApproval(approvalId, "approve");
  }

  /** Runs the four steps, asks to undo from step 2, and lets the goal go on to its next wait. */
  async function correctFromStepTwo(stack: E2eStack) {
    stack.writeFixture("compensate-four-steps", FOUR_STEPS);
    const { goalId } = await stack.client.submitGoal(FOUR_STEP_GOAL);
    const held = await until(
      stack,
      goalId,
      (snapshot) => snapshot.status === "waiting" && snapshot.steps === 4,
    );
    const revised = await fetch(`${stack.stack.apiUrl}/goals/${goalId}/revisions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        type: "corrective",
        content: "Undo everything from step 2 on",
        target: { fromStep: 2 },
      }),
    });
    expect(revised.status).toBe(202);
    // Queued by the resume handler (through the bus), applied at the next step boundary: once the
    // held read is approved.
    await eventually(async () =>
      (await allEvents(stack.client, goalId)).some((event) => event.type === "revision.queued"),
    );
    await approveWait(stack, held);
    const after = await until(
      stack,
      goalId,
      (snapshot) => snapshot.status === "waiting" && snapshot.compensation?.status === "completed",
    );
    return { goalId, after };
  }

  it("a corrective revision targeting step 2 of four restores the workspace to its state before step 2", async () => {
    // Prepare
    e2e = await sharedE2eStack();

    // Act
    const { goalId, after } = await correctFromStepTwo(e2e);

    // Assess: the listing and the hashes are those after step 1; the file created at step 3 is gone
    const files = await workspaceOf(e2e).listFiles(goalId);
    expect(files.map((file) => [file.path, file.sha256])).toEqual([["a.md", sha256("alpha, first draft")]]);
    expect(await workspaceOf(e2e).readFile(goalId, "c.md")).toBeUndefined();
    // The notify of step 3 is named as not compensable, in an event and in the snapshot
    expect(after.compensation).toMatchObject({
      trigger: "corrective",
      fromStep: 2,
      status: "completed",
      undone: 4,
      notCompensable: [{ step: 3, tool: "notify", reason: "notify declares no compensator" }],
    });
    const events = await allEvents(e2e.client, goalId);
    expect(events.filter((event) => event.type === "compensation.not_compensable")).toEqual([
      expect.objectContaining({ step: 3, tool: "notify" }),
    ]);
    // Newest first: step 5's read (nothing to undo), step 4 (b.md, then a.md), step 3 (notify, c.md), step 2
    const steps = events.filter((event) => event.type === "compensation.step");
    expect(steps.map((event) => [event.step, event.tool, event.action])).toEqual([
      [5, "workspace_read", "nothing_to_undo"],
      [4, "workspace_write", "deleted"],
      [4, "workspace_write", "restored"],
      [3, "notify", "not_compensable"],
      [3, "workspace_write", "deleted"],
      [2, "workspace_write", "restored"],
    ]);
    await e2e.client.cancel(goalId);
  }, 120_000);

  it("a crash mid-saga resumes it without undoing anything twice", async () => {
    // Prepare: the process dies right after the saga's second undo (b.md deleted), before it is recorded
    e2e = await startE2eStack({ environment: { [FAULT_INJECTION_ENV]: "crash-after-compensation:1" } });

    // Act
    const { goalId } = await correctFromStepTwo(e2e);

    // Assess: the crash happened, and the retried step finished the saga with each call undone once
    expect(
      e2e.logLines.some((line) => line.includes(`${FAULT_INJECTION_ENV}: crashing after compensation 1`)),
    ).toBe(true);
    const files = await workspaceOf(e2e).listFiles(goalId);
    expect(files.map((file) => [file.path, file.sha256])).toEqual([["a.md", sha256("alpha, first draft")]]);
    const steps = (await allEvents(e2e.client, goalId)).filter((event) => event.type === "compensation.step");
    const calls = steps.map((event) => event.toolUseId);
    expect(new Set(calls).size).toBe(calls.length);
    expect(steps).toHaveLength(6);
    // a.md went v1 → v2 → v3, then back: v3 restored to v2's content (v4), v2's write undone (v5). No more.
    expect((await workspaceOf(e2e).readFile(goalId, "a.md"))?.version).toBe(5);
    await e2e.client.cancel(goalId);
  }, 120_000);

  it("a cancelled plan with onAbandon compensate undoes its completed steps, newest first", async () => {
    // Prepare: two written steps, then a notify that waits for an approval
    e2e = await sharedE2eStack();
    e2e.writeFixture("compensate-abandoned-plan", {
      plan: [
        {
          toolUse: {
            name: "submit_plan",
            input: {
              steps: [
                {
                  id: "draft",
                  action: "Write draft.md",
                  tool: "workspace_write",
                  expected: "draft.md",
                  completion: { text: "written" },
                },
                {
                  id: "notes",
                  action: "Write notes.md",
                  tool: "workspace_write",
                  dependsOn: ["draft"],
                  expected: "notes.md",
                  completion: { text: "written" },
                },
                {
                  id: "tell",
                  action: "Tell the team",
                  tool: "notify",
                  dependsOn: ["notes"],
                  expected: "sent",
                  completion: { text: "sent" },
                },
              ],
            },
          },
        },
      ],
      execute: [
        { toolUse: write("draft.md", "a draft") },
        { toolUse: write("notes.md", "some notes") },
        { toolUse: { name: "notify", input: { channel: "team", message: "done" } } },
      ],
    });
    const { goalId } = await e2e.client.submitGoal({
      objective: "Write draft.md and notes.md, then tell the team",
      successChecks: [
        {
          id: "told",
          description: "the team was told",
          verify: { kind: "tool_result", tool: "notify", expect: {} },
        },
      ],
      tools: ["workspace_write", "notify"],
      pattern: "plan_execute",
      onAbandon: "compensate",
      models: { default: "scripted:compensate-abandoned-plan" },
    });
    await until(e2e, goalId, (snapshot) => snapshot.status === "waiting" && snapshot.steps === 2);
    expect((await workspaceOf(e2e).listFiles(goalId)).map((file) => file.path)).toEqual([
      "draft.md",
      "notes.md",
    ]);

    // Act
    await e2e.client.cancel(goalId, "the plan is abandoned");

    // Assess: both writes undone by the resume handler's saga on the cancelled goal
    const done = await until(e2e, goalId, (snapshot) => snapshot.compensation?.status === "completed");
    expect(done.status).toBe("cancelled");
    expect(done.compensation).toMatchObject({ trigger: "abandoned", fromStep: 1, toStep: 2, undone: 2 });
    expect(await workspaceOf(e2e).listFiles(goalId)).toEqual([]);
  }, 120_000);
});
