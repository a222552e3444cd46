import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settle } from "../../../../lambdas/core/goal/goal-change";
import { reattachGoal } from "../../../../lambdas/core/loop/reattach-goal";
import type { StepResult } from "../../../../lambdas/core/loop/step-result";
import { readGoal, updateGoal } from "../../../../lambdas/core/loop/update-goal";
import { type GoalTable, ScriptedModel, startGoalTable } from "../../loop/support";
import { createPlanGoal, lastOf, PlanLoopDriver, planSpec, step, submitsPlan, uses } from "./support";

/** The plan: tell ops (an approval), then write one, two and three. */
const PLAN = [
  step("tell", { tool: "notify" }),
  step("one", { tool: "workspace_write", dependsOn: ["tell"] }),
  step("two", { tool: "workspace_write", dependsOn: ["one"] }),
  step("three", { tool: "workspace_write", dependsOn: ["two"] }),
];
const tell = () => uses("notify", { channel: "ops", message: "release 2.0 is out" });
const write = (name: string) => uses("workspace_write", { path: `${name}.md`, content: name });

const SPEC = planSpec({
  successChecks: [
    { id: "three", description: "three.md is written", verify: { kind: "artifact", path: "three.md" } },
    {
      id: "told",
      description: "ops were told",
      verify: { kind: "tool_result", tool: "notify", expect: { status: "success" } },
    },
  ],
});

describe("a Plan-and-Execute step across a chain of runs", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });
  afterAll(() => table.stop());

  /**
   * Runs r1 until it parks on the notify's approval, then re-attaches the goal `restarts` times (each
   * new run loads and parks on the same approval again, as a restarted local stack does).
   */
  async function parkedThroughRestarts(loop: PlanLoopDriver, restarts: number) {
    const goal = await createPlanGoal(table, SPEC);
    const { requested } = await loop.requestApproval(lastOf(await loop.run(goal.goalId)));
    if (requested.outcome !== "requested") throw new Error("no approval was requested");
    for (let restart = 0; restart < restarts; restart += 1) {
      const reattached = await reattachGoal({ goals: table.adapters.goals, now: loop.now }, goal.goalId);
      if (!reattached) throw new Error("the goal was not re-attached");
      const parked = await loop.requestApproval(await loop.load(goal.goalId, reattached.runId));
      expect(parked.requested).toEqual({ outcome: "reused", approvalId: requested.approvalId });
    }
    return { goalId: goal.goalId, approvalId: requested.approvalId };
  }

  async function notifies(goalId: string) {
    return (await table.adapters.outbox.listMessages(goalId)).filter((message) => message.channel === "ops");
  }

  it.each([0, 1, 2, 3, 4, 5])(
    "completes as planned when approved after %i restarts: each step started and observed once, one notify",
    async (restarts) => {
      // Prepare
      const model = new ScriptedModel({
        plan: [submitsPlan(PLAN)],
        execute: [tell(), write("one"), write("two"), write("three")],
      });
      const loop = new PlanLoopDriver(table, model);
      const { goalId, approvalId } = await parkedThroughRestarts(loop, restarts);

      // Act
      const end = lastOf(await loop.continue(await loop.decide(approvalId, "approve")));

      // Assess
      expect(end.next).toBe("completed");
      const observed = await loop.eventsOf(goalId, "plan.step.observed");
      expect(observed.map((event) => `${event.stepId} ${event.outcome} attempt ${event.attempt}`)).toEqual([
        "tell success attempt 1",
        "one success attempt 1",
        "two success attempt 1",
        "three success attempt 1",
      ]);
      expect(await loop.eventsOf(goalId, "plan.step.started")).toHaveLength(4);
      expect(await loop.eventsOf(goalId, "turn.discarded")).toEqual([]);
      expect(model.requestsFor("execute")).toHaveLength(4);
      expect(model.requestsFor("plan")).toHaveLength(1);
      expect(await notifies(goalId)).toHaveLength(1);
      expect(await loop.eventsOf(goalId, "run.reattached")).toHaveLength(restarts);
    },
  );

  it.each([0, 1, 3])(
    "acts on a batch whose gated step parked through %i restarts: every turn made and counted once, one notify",
    async (restarts) => {
      // Prepare: the same four steps, independent, so one batch makes all four turns
      const model = new ScriptedModel({
        plan: [submitsPlan(PLAN.map(({ dependsOn: _none, ...independent }) => independent))],
        execute: [tell(), write("one"), write("two"), write("three")],
      });
      const loop = new PlanLoopDriver(table, model);
      const { goalId, approvalId } = await parkedThroughRestarts(loop, restarts);
      const parked = await loop.goal(goalId);

      // Act
      const end = lastOf(await loop.continue(await loop.decide(approvalId, "approve")));

      // Assess: the writes acted before the gated notify parked the goal, and nothing ran twice
      expect(parked.planState?.steps.map((s) => `${s.id} ${s.status}`)).toEqual([
        "tell running",
        "one done",
        "two done",
        "three done",
      ]);
      expect(end.next).toBe("completed");
      expect(model.requestsFor("execute")).toHaveLength(4);
      const done = await loop.goal(goalId);
      expect(done.usageByRole.execute?.modelCalls).toBe(4);
      expect(await loop.eventsOf(goalId, "plan.step.started")).toHaveLength(4);
      expect(await loop.eventsOf(goalId, "turn.discarded")).toEqual([]);
      expect(await notifies(goalId)).toHaveLength(1);
      expect(await loop.eventsOf(goalId, "run.reattached")).toHaveLength(restarts);
    },
  );

  it.each([0, 1, 3])(
    "refuses an off-plan call of a step started after %i restarts, and the step's next attempt does it",
    async (restarts) => {
      // Prepare: step one's executor calls notify instead of writing, then writes
      const model = new ScriptedModel({
        plan: [submitsPlan(PLAN)],
        execute: [tell(), tell(), write("one"), write("two"), write("three")],
      });
      const loop = new PlanLoopDriver(table, model);
      const { goalId, approvalId } = await parkedThroughRestarts(loop, restarts);

      // Act
      const end = lastOf(await loop.continue(await loop.decide(approvalId, "approve")));

      // Assess
      expect(end.next).toBe("completed");
      const errors = await loop.eventsOf(goalId, "tool.error");
      expect(errors).toEqual([expect.objectContaining({ name: "notify", errorName: "OffPlanToolCall" })]);
      const observed = await loop.eventsOf(goalId, "plan.step.observed");
      expect(observed.map((event) => `${event.stepId} ${event.outcome}`)).toEqual([
        "tell success",
        "one recoverable_failure",
        "one success",
        "two success",
        "three success",
      ]);
      expect(await notifies(goalId)).toHaveLength(1);
      expect(await loop.eventsOf(goalId, "approval.requested")).toHaveLength(1);
    },
  );

  it("refuses every call of an executor turn whose plan step cannot be found", async () => {
    // Prepare: parked on the notify's approval; the record then loses the step in progress
    const model = new ScriptedModel({ plan: [submitsPlan(PLAN)], execute: [tell()] });
    const loop = new PlanLoopDriver(table, model);
    const { goalId, approvalId } = await parkedThroughRestarts(loop, 2);
    const loaded = await readGoal(table.adapters.goals, goalId);
    await updateGoal(table.adapters.goals, loaded, (record) => {
      const state = record.planState;
      if (!state) return undefined;
      const { current: _lost, ...rest } = state;
      return settle({ ...record, planState: rest }, []);
    });

    // Act
    const woken: StepResult = await loop.decide(approvalId, "approve");
    const acted = await loop.act(woken);

    // Assess
    expect(acted.next).toBe("verify");
    expect(await loop.eventsOf(goalId, "tool.error")).toEqual([
      expect.objectContaining({
        name: "notify",
        errorName: "OffPlanToolCall",
        message: expect.stringContaining("No plan step is in progress"),
      }),
    ]);
    expect(await notifies(goalId)).toEqual([]);
  });
});
