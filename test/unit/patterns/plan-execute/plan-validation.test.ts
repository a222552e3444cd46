import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePlanAnswer } from "../../../../lambdas/core/patterns/plan-execute/plan-prompt";
import { issueLines, PlanSchema } from "../../../../lambdas/core/patterns/plan-execute/plan-schema";
import { type GoalTable, lastUserText, ScriptedModel, startGoalTable } from "../../loop/support";
import { answers, createPlanGoal, lastOf, PlanLoopDriver, step, submitsPlan, uses } from "./support";

function problemsOf(steps: unknown[]): string[] {
  const parsed = PlanSchema.safeParse({ steps });
  return parsed.success ? [] : issueLines(parsed.error);
}

describe("PlanSchema", () => {
  it("accepts steps with unique ids and existing dependencies, filling dependsOn and critical", () => {
    // Act
    const parsed = PlanSchema.parse({ steps: [step("a"), step("b", { dependsOn: ["a"] })] });

    // Assess
    expect(parsed.steps.map((s) => [s.id, s.dependsOn, s.critical])).toEqual([
      ["a", [], true],
      ["b", ["a"], true],
    ]);
  });

  it("refuses an empty plan, duplicate ids, unknown dependencies and cycles, naming each", () => {
    // Assess
    expect(problemsOf([])).toEqual(["steps: a plan has at least one step"]);
    expect(problemsOf([step("a"), step("a")])).toEqual(["steps.1.id: duplicate step id 'a'"]);
    expect(problemsOf([step("a", { dependsOn: ["ghost"] })])).toEqual([
      "steps.0.dependsOn.0: no step 'ghost' in the plan",
    ]);
    expect(problemsOf([step("a", { dependsOn: ["b"] }), step("b", { dependsOn: ["a"] }), step("c")])).toEqual(
      ["steps: dependency cycle between a, b"],
    );
    expect(problemsOf([step("a", { dependsOn: ["a"] })])).toEqual([
      "steps.0.dependsOn.0: a step cannot depend on itself",
    ]);
  });

  it("refuses a completion predicate with nothing to check", () => {
    // Assess
    expect(problemsOf([step("a", { completion: { text: "done", expect: {} } })])).toEqual([
      "steps.0.completion.expect: must give contains or equals",
    ]);
  });
});

describe("parsePlanAnswer", () => {
  it("reads the submit_plan call, or a JSON object in a text answer", () => {
    // Act
    const fromTool = parsePlanAnswer(submitsPlan([step("a")]));
    const fromText = parsePlanAnswer(answers(`Here is the plan:\n${JSON.stringify({ steps: [step("b")] })}`));

    // Assess
    expect(fromTool).toMatchObject({ ok: true, steps: [{ id: "a" }] });
    expect(fromText).toMatchObject({ ok: true, steps: [{ id: "b" }] });
  });

  it("says what is wrong with an answer without a plan or with a bad one", () => {
    // Assess
    expect(parsePlanAnswer(answers("I would first look around."))).toEqual({
      ok: false,
      issues: ["(root): no submit_plan call and no JSON plan in the answer"],
    });
    expect(parsePlanAnswer(submitsPlan([{ id: "a", action: "x" }]))).toMatchObject({
      ok: false,
      issues: expect.arrayContaining([expect.stringMatching(/^steps\.0\.expected: /)]),
    });
  });
});

describe("an invalid plan in the loop", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });
  afterAll(() => table.stop());

  it("is a recorded recoverable failure: an event names the issues, it counts as a replan, the next prompt says what was wrong", async () => {
    // Prepare
    const goal = await createPlanGoal(table);
    const model = new ScriptedModel({
      plan: [
        submitsPlan([step("a", { dependsOn: ["b"] }), step("b", { dependsOn: ["a"] })]),
        submitsPlan([step("write", { tool: "workspace_write" })]),
      ],
      execute: [uses("workspace_write", { path: "notes.md", content: "2.0" })],
    });
    const loop = new PlanLoopDriver(table, model);

    // Act
    const answered = await loop.continue(await loop.load(goal.goalId), { stopAt: "execute" });
    const afterInvalid = await loop.goal(goal.goalId);
    await loop.continue(lastOf(answered));

    // Assess
    expect(answered.map((answer) => answer.next)).toEqual([
      "verify",
      "plan",
      "verify",
      "plan",
      "verify",
      "execute",
    ]);
    expect(await loop.eventsOf(goal.goalId, "plan.invalid")).toEqual([
      expect.objectContaining({ issues: ["steps: dependency cycle between a, b"], version: 0 }),
    ]);
    expect(afterInvalid.replans).toBe(1);
    expect(afterInvalid.planState).toMatchObject({ version: 1, steps: [{ id: "write" }] });
    expect(lastUserText(model.requestsFor("plan")[1])).toContain(
      "Your last plan was invalid; fix these problems:\n- steps: dependency cycle between a, b",
    );
    expect((await loop.goal(goal.goalId)).status).toBe("completed");
  });

  it("never runs an empty plan, nor one that names a tool the goal may not use", async () => {
    // Prepare
    const goal = await createPlanGoal(table);
    const model = new ScriptedModel({
      plan: [submitsPlan([]), submitsPlan([step("shell", { tool: "run_shell" })])],
    });
    const loop = new PlanLoopDriver(table, model);

    // Act
    await loop.continue(await loop.load(goal.goalId), { stopAt: "replan_cooldown" });

    // Assess
    const invalid = await loop.eventsOf(goal.goalId, "plan.invalid");
    expect(invalid.map((event) => event.issues)).toEqual([
      ["steps: submit at least one step"],
      [expect.stringContaining("steps.0.tool: tool 'run_shell' is not granted to this goal")],
    ]);
    const record = await loop.goal(goal.goalId);
    expect(record.planState).toMatchObject({ version: 0, steps: [] });
    expect(model.requestsFor("execute")).toHaveLength(0);
  });
});
