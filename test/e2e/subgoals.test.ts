import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GoalSnapshot, GoalStatus } from "../../lambdas/core/goal/goal-record";
import { checkInvariants } from "../../lambdas/core/goal/invariants";
import { allEvents, type E2eStack, PROJECT_DIR } from "./local-stack-harness";
import { sharedE2eStack } from "./shared-e2e-stack";

const SHIP_DOCS = JSON.parse(
  readFileSync(join(PROJECT_DIR, "examples", "goals", "ship-docs-with-subgoals.json"), "utf8"),
) as Record<string, unknown>;

/** A child that writes one file and is done: a ReAct goal of its own fixture. */
function writingChild(model: string, path: string, extra: Record<string, unknown> = {}) {
  return {
    objective: `Write ${path}`,
    successChecks: [
      { id: "written", description: `${path} exists`, verify: { kind: "artifact", path, contains: "ok" } },
    ],
    pattern: "react",
    models: { default: `scripted:${model}` },
    ...extra,
  };
}

describe("sub-goals end to end (spawn_subgoal, waiting, usage, cascade, budgets)", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await sharedE2eStack();
    // A child whose every turn writes a new file no check names: it runs until it is cancelled.
    // Each turn takes 100 ms, so the cascade cancels it long before its 50th turn: there a run
    // continues as new and asks for a summary this fixture has none of (on warm sandboxes, a turn
    // without it took 90 ms, and the child once got there first).
    e2e.writeFixture("subgoal-busy-child", {
      reason: Array.from({ length: 200 }, (_, index) => ({
        toolUse: { name: "workspace_write", input: { path: `busy/${index}.md`, content: `note ${index}` } },
        latencyMs: 100,
      })),
    });
    e2e.writeFixture("subgoal-cascade-parent", {
      reason: [
        {
          toolUse: {
            name: "spawn_subgoal",
            input: writingChild("subgoal-busy-child", "never.md", {
              limits: { maxSteps: 150, maxNoProgressCycles: 150 },
            }),
          },
        },
      ],
    });
    e2e.writeFixture("subgoal-greedy-parent", {
      reason: [
        {
          toolUse: {
            name: "spawn_subgoal",
            input: writingChild("subgoal-writer-child", "child.md", { limits: { maxCostUsd: 5 } }),
          },
        },
        { toolUse: { name: "workspace_write", input: { path: "parent.md", content: "ok, on my own" } } },
      ],
    });
    e2e.writeFixture("subgoal-writer-child", {
      reason: [{ toolUse: { name: "workspace_write", input: { path: "child.md", content: "ok" } } }],
    });
    // A child that must notify (an approval) before it writes: its parent waits on it meanwhile.
    e2e.writeFixture("subgoal-asking-child", {
      reason: [
        { toolUse: { name: "notify", input: { channel: "team", message: "about to write asked.md" } } },
        { toolUse: { name: "workspace_write", input: { path: "asked.md", content: "ok" } } },
      ],
    });
    e2e.writeFixture("subgoal-asking-parent", {
      reason: [
        {
          toolUse: {
            name: "spawn_subgoal",
            input: writingChild("subgoal-asking-child", "asked.md", { tools: ["notify", "workspace_write"] }),
          },
        },
      ],
    });
    // A plan whose second step is a sub-goal: the executor's call starts the child the plan wrote.
    e2e.writeFixture("subgoal-plan-parent", {
      plan: [
        {
          toolUse: {
            name: "submit_plan",
            input: {
              steps: [
                {
                  id: "outline",
                  action: "Write outline.md",
                  tool: "workspace_write",
                  expected: "outline.md",
                  completion: { text: "written" },
                },
                {
                  id: "delegate",
                  action: "Have a sub-goal write child.md",
                  tool: "spawn_subgoal",
                  dependsOn: ["outline"],
                  expected: "a completed sub-goal",
                  completion: { text: "the sub-goal completed", expect: { contains: "child.md" } },
                  subgoal: writingChild("subgoal-writer-child", "child.md"),
                },
              ],
            },
          },
        },
      ],
      execute: [
        { toolUse: { name: "workspace_write", input: { path: "outline.md", content: "# outline" } } },
        { toolUse: { name: "spawn_subgoal", input: {} } },
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await e2e?.stop();
  }, 120_000);

  /** Polls a goal until `done` holds (invariants checked on every snapshot), or fails at the deadline. */
  async function until(goalId: string, done: (snapshot: GoalSnapshot) => boolean): Promise<GoalSnapshot> {
    const deadline = Date.now() + 90_000;
    for (;;) {
      const snapshot = await e2e.client.getGoal(goalId);
      expect(checkInvariants(snapshot)).toEqual([]);
      if (done(snapshot)) return snapshot;
      if (Date.now() > deadline) throw new Error(`goal ${goalId} is still ${snapshot.status}`);
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
    }
  }
  const ended = (status: GoalStatus) =>
    ["completed", "cancelled", "terminated", "paused", "failed"].includes(status);

  it("a ReAct goal spawns a Plan-and-Execute and a Reflexion sub-goal and completes on their evidence", async () => {
    // Act
    const { goalId } = await e2e.client.submitGoal(SHIP_DOCS);
    const final = await until(goalId, (snapshot) => ended(snapshot.status));

    // Assess: the parent completed on the children's outcomes, both children completed
    expect(final.status).toBe("completed");
    expect(final.satisfiedChecks).toEqual(["release-notes", "upgrade-notes"]);
    expect(final.children?.map((child) => [child.status, child.progress?.overall])).toEqual([
      ["completed", 1],
      ["completed", 1],
    ]);
    const { items: children } = await e2e.client.listChildren(goalId);
    expect(children.map((child) => child.pattern)).toEqual(["plan_execute", "reflexion"]);
    for (const child of children) {
      expect(child.parentGoalId).toBe(goalId);
      expect(child.status).toBe("completed");
    }
    const events = await allEvents(e2e.client, goalId);
    expect(events.filter((event) => event.type === "subgoal.started")).toHaveLength(2);
    expect(events.filter((event) => event.type === "subgoal.ended").map((event) => event.status)).toEqual([
      "completed",
      "completed",
    ]);
    const waited = events.find((event) => event.type === "goal.waiting");
    expect(waited).toMatchObject({ waitingFor: { kind: "subgoal" } });
  }, 120_000);

  it("counts the children's usage in the parent's: its own calls plus theirs", async () => {
    // Prepare
    const { goalId } = await e2e.client.submitGoal(SHIP_DOCS);
    const parent = await until(goalId, (snapshot) => ended(snapshot.status));
    const { items: children } = await e2e.client.listChildren(goalId);

    // Act: the parent's own calls, from its events
    const own = (await allEvents(e2e.client, goalId)).filter((event) => event.type === "model.usage");
    const sum = (field: "inputTokens" | "outputTokens" | "modelCalls") =>
      children.reduce((total, child) => total + child.usage[field], 0);

    // Assess
    expect(own.length).toBeGreaterThan(0);
    expect(parent.usage.modelCalls).toBe(own.length + sum("modelCalls"));
    expect(parent.usage.inputTokens).toBe(
      own.reduce((total, event) => total + Number(event.inputTokens), 0) + sum("inputTokens"),
    );
    expect(parent.usage.outputTokens).toBe(
      own.reduce((total, event) => total + Number(event.outputTokens), 0) + sum("outputTokens"),
    );
  }, 120_000);

  it("cancelling a parent whose child runs cancels the child", async () => {
    // Prepare: the parent waits on a child that keeps busy
    const { goalId } = await e2e.client.submitGoal({
      objective: "Have a sub-goal write never.md",
      successChecks: [
        {
          id: "child-done",
          description: "the sub-goal completed",
          verify: { kind: "tool_result", tool: "spawn_subgoal", expect: { contains: "never.md" } },
        },
      ],
      tools: ["spawn_subgoal", "workspace_write"],
      limits: { maxSteps: 200 },
      pattern: "react",
      models: { default: "scripted:subgoal-cascade-parent" },
    });
    const waiting = await until(goalId, (snapshot) => snapshot.status === "waiting");
    expect(waiting.waitingFor?.kind).toBe("subgoal");
    const childId = waiting.waitingFor?.goalIds?.[0] ?? "";
    await until(childId, (snapshot) => snapshot.steps >= 2);

    // Act
    await e2e.client.cancel(goalId, "no longer needed");

    // Assess: the child is cancelled by its parent's end, its run stopped
    const child = await until(childId, (snapshot) => snapshot.status !== "running");
    expect(child.status).toBe("cancelled");
    expect(child.stopReason?.message).toContain(`its parent goal ${goalId} ended cancelled`);
    // The child's end reaches the cancelled parent too: its usage counts in the parent's, a call it
    // had in flight when it was cancelled included (counted on it after its end)
    const deadline = Date.now() + 30_000;
    for (;;) {
      const [parent, ended] = [await e2e.client.getGoal(goalId), await e2e.client.getGoal(childId)];
      expect(parent.status).toBe("cancelled");
      if (parent.usage.modelCalls === 1 + ended.usage.modelCalls) break;
      if (Date.now() > deadline) {
        throw new Error(`parent counts ${parent.usage.modelCalls} calls, child ${ended.usage.modelCalls}`);
      }
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
    }
    const events = await allEvents(e2e.client, goalId);
    expect(events.filter((event) => event.type === "subgoal.ended")).toEqual([
      expect.objectContaining({ subgoalId: childId, status: "cancelled" }),
    ]);
  }, 120_000);

  it("refuses a child asking for more budget than the parent has left, as a tool error naming the limit", async () => {
    // Act: the parent may spend $1 and the child asks for $5
    const { goalId } = await e2e.client.submitGoal({
      objective: "Write parent.md, with a sub-goal's help if the budget allows",
      successChecks: [
        { id: "parent", description: "parent.md exists", verify: { kind: "artifact", path: "parent.md" } },
      ],
      tools: ["spawn_subgoal", "workspace_write"],
      limits: { maxSteps: 5, maxCostUsd: 1 },
      pattern: "react",
      models: { default: "scripted:subgoal-greedy-parent" },
    });
    const final = await until(goalId, (snapshot) => ended(snapshot.status));

    // Assess: no child started, the model got the refusal and went on alone
    expect(final.status).toBe("completed");
    expect(final.children).toBeUndefined();
    const events = await allEvents(e2e.client, goalId);
    const refused = events.find((event) => event.type === "subgoal.refused");
    expect(refused).toMatchObject({ errorName: "SubgoalBudgetExceeded" });
    expect(String(refused?.message)).toContain("limits.maxCostUsd");
    const toolError = events.find((event) => event.type === "tool.error" && event.name === "spawn_subgoal");
    expect(toolError).toMatchObject({ errorName: "SubgoalBudgetExceeded" });
    expect(String(toolError?.message)).toContain(
      "limits.maxCostUsd: $5.00 asked, but the parent has $1.00 left",
    );
  }, 120_000);

  it("shows a child waiting for a human under its parent, and goes on once the human answers", async () => {
    // Prepare
    const { goalId } = await e2e.client.submitGoal({
      objective: "Have a sub-goal write asked.md, telling the team first",
      successChecks: [
        {
          id: "asked",
          description: "the sub-goal completed with asked.md",
          verify: { kind: "tool_result", tool: "spawn_subgoal", expect: { contains: "asked.md" } },
        },
      ],
      tools: ["spawn_subgoal", "notify", "workspace_write"],
      pattern: "react",
      models: { default: "scripted:subgoal-asking-parent" },
    });

    // Act: the child asks for its notify
    const waiting = await until(goalId, (snapshot) => snapshot.children?.[0]?.status === "waiting");
    const child = waiting.children?.[0];

    // Assess: the parent waits on the child, and says what the child waits for
    expect(waiting.status).toBe("waiting");
    expect(waiting.waitingFor?.kind).toBe("subgoal");
    expect(waiting.waitingFor?.reason).toContain(
      `sub-goal ${child?.goalId} waits: approve before it runs: notify`,
    );
    expect(child?.waitingFor?.kind).toBe("approval");
    const [approval] = (await e2e.client.listApprovals("pending")).filter(
      (item) => item.goalId === child?.goalId,
    );
    await e2e.client.decideApproval(approval?.approvalId ?? "", "approve");
    const final = await until(goalId, (snapshot) => ended(snapshot.status));
    expect(final.status).toBe("completed");
  }, 120_000);

  it("starts the sub-goal a Plan-and-Execute step describes, and the step is done when it completes", async () => {
    // Act
    const { goalId } = await e2e.client.submitGoal({
      objective: "Write outline.md, then have a sub-goal write child.md",
      successChecks: [
        { id: "outline", description: "outline.md exists", verify: { kind: "artifact", path: "outline.md" } },
        {
          id: "delegated",
          description: "the sub-goal completed",
          verify: { kind: "tool_result", tool: "spawn_subgoal", expect: { contains: "child.md" } },
        },
      ],
      tools: ["spawn_subgoal", "workspace_write"],
      pattern: "plan_execute",
      models: { default: "scripted:subgoal-plan-parent" },
    });
    const final = await until(goalId, (snapshot) => ended(snapshot.status));

    // Assess: the child has the plan's contract (not the executor's empty input) and completed
    expect(final.status).toBe("completed");
    const { items: children } = await e2e.client.listChildren(goalId);
    expect(children.map((child) => [child.objective, child.status, child.pattern])).toEqual([
      ["Write child.md", "completed", "react"],
    ]);
    const events = await allEvents(e2e.client, goalId);
    expect(
      events.find((event) => event.type === "plan.step.observed" && event.stepId === "delegate"),
    ).toMatchObject({
      outcome: "success",
    });
  }, 120_000);

  it("refuses parentGoalId and depth in a GoalSpec a user posts, naming the field", async () => {
    // Act
    const response = await fetch(`${e2e.stack.apiUrl}/goals`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        ...writingChild("subgoal-writer-child", "child.md"),
        parentGoalId: "g-1",
        depth: 1,
      }),
    });
    const body = (await response.json()) as { error: { code: string; issues: { path: string }[] } };

    // Assess
    expect(response.status).toBe(400);
    expect(body.error.code).toBe("ValidationError");
    expect(body.error.issues.map((issue) => issue.path)).toEqual(["parentGoalId", "depth"]);
  }, 120_000);
});
