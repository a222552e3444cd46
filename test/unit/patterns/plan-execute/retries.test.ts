import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StepResult } from "../../../../lambdas/core/loop/step-result";
import {
  crashAfterCheckpoint,
  type GoalTable,
  InjectedCrash,
  ScriptedModel,
  startGoalTable,
} from "../../loop/support";
import { createPlanGoal, PlanLoopDriver, step, submitsPlan, uses } from "./support";

const NOTES = "# 2.0\n\nPlans, steps and evidence.";

function scripted() {
  return new ScriptedModel({
    plan: [
      submitsPlan([
        step("list", { tool: "workspace_list" }),
        step("write", { tool: "workspace_write", dependsOn: ["list"] }),
      ]),
    ],
    execute: [uses("workspace_list", {}), uses("workspace_write", { path: "notes.md", content: NOTES })],
  });
}

describe("retried Plan-and-Execute steps", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });
  afterAll(() => table.stop());

  it("repeat no model call, count no usage twice and append no event twice when run again with the same input", async () => {
    // Prepare
    const goal = await createPlanGoal(table);
    const model = scripted();
    const loop = new PlanLoopDriver(table, model);
    const twice = async (position: StepResult) => {
      const first = await loop.step(position);
      const before = (await loop.events(goal.goalId)).length;
      const second = await loop.step(position);
      expect(second, `${position.next} again`).toEqual(first);
      expect((await loop.events(goal.goalId)).length, `${position.next} events`).toBe(before);
      if (!first) throw new Error(`no step for ${position.next}`);
      return first;
    };

    // Act: every state of the run, each one retried once
    let answer: StepResult = await loop.load(goal.goalId);
    while (["verify", "plan", "execute", "act"].includes(answer.next)) answer = await twice(answer);

    // Assess
    const done = await loop.goal(goal.goalId);
    expect(answer.next).toBe("completed");
    expect(model.requestsFor("plan")).toHaveLength(1);
    expect(model.requestsFor("execute")).toHaveLength(2);
    expect(done.usage.modelCalls).toBe(3);
    expect(done.planState?.steps.map((s) => s.attempts)).toEqual([1, 1]);
  });

  it.each(["plan", "execute"] as const)(
    "reuse the %s checkpoint when the step crashed after its model call",
    async (role) => {
      // Prepare
      const goal = await createPlanGoal(table);
      const model = scripted();
      const loop = new PlanLoopDriver(table, model);
      const crashing = crashAfterCheckpoint(table.adapters.goals, role);
      let answer: StepResult = await loop.load(goal.goalId);
      while (answer.next !== role) answer = (await loop.step(answer)) ?? answer;

      // Act
      await expect(loop.step(answer, crashing)).rejects.toBeInstanceOf(InjectedCrash);
      await loop.continue(answer);

      // Assess
      const done = await loop.goal(goal.goalId);
      expect(done.status).toBe("completed");
      expect(model.requestsFor(role)).toHaveLength(role === "plan" ? 1 : 2);
      expect(done.usageByRole[role]?.modelCalls).toBe(role === "plan" ? 1 : 2);
    },
  );
});
