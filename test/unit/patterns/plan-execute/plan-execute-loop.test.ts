import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXECUTE_INSTRUCTIONS } from "../../../../lambdas/core/patterns/plan-execute/execute-prompt";
import { SUBMIT_PLAN_TOOL } from "../../../../lambdas/core/patterns/plan-execute/plan-prompt";
import { type GoalTable, lastUserText, ScriptedModel, startGoalTable } from "../../loop/support";
import {
  createPlanGoal,
  FAST_MODEL_ID,
  HEAVY_MODEL_ID,
  PlanLoopDriver,
  planSpec,
  replanScript,
  step,
  submitsPlan,
  uses,
} from "./support";

const NOTES = "# 2.0\n\nPlans, steps and evidence.";
/** Two steps with different tools: list the workspace, then write notes.md. */
const LIST_THEN_WRITE = submitsPlan([
  step("list", { tool: "workspace_list" }),
  step("write", { tool: "workspace_write", action: "Write notes.md", dependsOn: ["list"] }),
]);

describe("the Plan-and-Execute loop steps", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });
  afterAll(() => table.stop());

  it("plans with the heavy model, executes each step with the fast one, and completes with evidence", async () => {
    // Prepare
    const goal = await createPlanGoal(table);
    const model = new ScriptedModel({
      plan: [
        submitsPlan([
          step("list", { tool: "workspace_list", action: "See which files exist" }),
          step("write", {
            tool: "workspace_write",
            action: "Write notes.md naming 2.0",
            dependsOn: ["list"],
            completion: { text: "notes.md written", expect: { contains: "notes.md" } },
          }),
        ]),
      ],
      execute: [uses("workspace_list", {}), uses("workspace_write", { path: "notes.md", content: NOTES })],
    });
    const loop = new PlanLoopDriver(table, model);

    // Act
    const answered = await loop.run(goal.goalId);

    // Assess
    expect(answered.map((answer) => answer.next)).toEqual([
      "verify",
      "plan",
      "verify",
      "execute",
      "verify",
      "execute",
      "verify",
      "completed",
    ]);
    const done = await loop.goal(goal.goalId);
    expect(done.status).toBe("completed");
    expect(done.evidence).toEqual([
      expect.objectContaining({ checkId: "notes", kind: "artifact", path: "notes.md" }),
    ]);
    expect(done.planState?.steps.map((s) => [s.id, s.status, s.lastResult])).toEqual([
      ["list", "done", "success"],
      ["write", "done", "success"],
    ]);
    expect(model.requestsFor("plan").map((request) => request.modelId)).toEqual([HEAVY_MODEL_ID]);
    expect(model.requestsFor("execute").map((request) => request.modelId)).toEqual([
      FAST_MODEL_ID,
      FAST_MODEL_ID,
    ]);
    expect(model.requestsFor("plan")[0]?.tools?.map((tool) => tool.name)).toEqual([SUBMIT_PLAN_TOOL]);
    expect(done.usageByRole.plan?.modelCalls).toBe(1);
    expect(done.usageByRole.execute?.modelCalls).toBe(2);
    const created = await loop.eventsOf(goal.goalId, "plan.created");
    expect(created).toEqual([expect.objectContaining({ version: 1, steps: ["list", "write"] })]);
  });

  it("gives the executor the step and its dependencies' results, not the goal to reinterpret, and one tool list for every step", async () => {
    // Prepare
    const goal = await createPlanGoal(table);
    const model = new ScriptedModel({
      plan: [LIST_THEN_WRITE],
      execute: [uses("workspace_list", {}), uses("workspace_write", { path: "notes.md", content: NOTES })],
    });
    const loop = new PlanLoopDriver(table, model);

    // Act
    await loop.run(goal.goalId);

    // Assess
    const [first, second] = model.requestsFor("execute");
    expect(second?.system[0]).toEqual({ text: EXECUTE_INSTRUCTIONS });
    // Every granted tool on every step: the cached prefix starts with the tools.
    expect(second?.tools?.map((tool) => tool.name).sort()).toEqual([...(planSpec().tools ?? [])].sort());
    expect(second?.tools).toEqual(first?.tools);
    const prompt = lastUserText(second);
    expect(prompt).toContain("Plan step write");
    expect(prompt).toContain("Action: Write notes.md");
    expect(prompt).toContain("Tool: workspace_write (only this one");
    expect(prompt).toContain("Results of the steps it depends on:");
    expect(prompt).toMatch(/- list \(done\): .*files/);
  });

  it("refuses an executor call to another tool than the step names: nothing runs, the step is retried", async () => {
    // Prepare
    const goal = await createPlanGoal(table);
    const model = new ScriptedModel({
      plan: [LIST_THEN_WRITE],
      execute: [
        uses("workspace_write", { path: "shortcut.md", content: "skipped the listing" }),
        uses("workspace_list", {}),
        uses("workspace_write", { path: "notes.md", content: NOTES }),
      ],
    });
    const loop = new PlanLoopDriver(table, model);

    // Act
    await loop.run(goal.goalId);

    // Assess
    expect((await loop.goal(goal.goalId)).status).toBe("completed");
    expect(await table.adapters.workspace.readFile(goal.goalId, "shortcut.md")).toBeUndefined();
    const errors = await loop.eventsOf(goal.goalId, "tool.error");
    expect(errors).toEqual([
      expect.objectContaining({
        name: "workspace_write",
        message: expect.stringContaining("OffPlanToolCall"),
      }),
    ]);
    const retried = lastUserText(model.requestsFor("execute")[1]);
    expect(retried).toContain("Plan step list");
    expect(retried).toContain("OffPlanToolCall");
  });

  it("answers a step the executor cannot do as planned with a replan of the remaining steps", async () => {
    // Prepare
    const goal = await createPlanGoal(table);
    const model = new ScriptedModel(replanScript(NOTES));
    const loop = new PlanLoopDriver(table, model);

    // Act
    await loop.run(goal.goalId);

    // Assess
    expect((await loop.goal(goal.goalId)).status).toBe("completed");
    const [revised] = await loop.eventsOf(goal.goalId, "plan.revised");
    expect(revised).toMatchObject({
      strategy: "replace_subplan",
      trigger: "new_information",
      stepIds: ["fetch"],
    });
    expect(lastUserText(model.requestsFor("plan")[1])).toContain("no changelog URL");
  });
});
