import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GoalTable, ScriptedModel, startGoalTable } from "../../loop/support";
import {
  answers,
  createPlanGoal,
  lastOf,
  PlanLoopDriver,
  planSpec,
  step,
  submitsPlan,
  uses,
} from "./support";

/** Four steps with no dependencies: each writes its own file. */
const FOUR_FILES = ["a", "b", "c", "d"];
const fourIndependentSteps = () =>
  submitsPlan(FOUR_FILES.map((id) => step(id, { tool: "workspace_write", action: `Write ${id}.md` })));
const writes = (id: string) => uses("workspace_write", { path: `${id}.md`, content: `# ${id}\n\n2.0` });

/** One check per file, so the goal completes only when all four were written. */
const fourFileSpec = () =>
  planSpec({
    successChecks: FOUR_FILES.map((id) => ({
      id: `file-${id}`,
      description: `${id}.md names 2.0`,
      verify: { kind: "artifact" as const, path: `${id}.md`, contains: "2.0" },
    })),
  });

describe("Plan-and-Execute batches of ready steps", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });
  afterAll(() => table.stop());

  it("makes every ready step's turn at once, each under its own key and call number, then acts on each", async () => {
    // Prepare
    const goal = await createPlanGoal(table, fourFileSpec());
    const model = new ScriptedModel({ plan: [fourIndependentSteps()], execute: FOUR_FILES.map(writes) });
    const loop = new PlanLoopDriver(table, model);
    // The four branches commit the goal at the same time: none of their usage may be lost.
    loop.concurrentBatch = true;

    // Act
    const answered = await loop.run(goal.goalId);

    // Assess: one batch, then each step acted on and observed in its own iteration
    expect(answered.map((answer) => answer.next)).toEqual([
      "verify",
      "plan",
      "verify",
      "execute_batch",
      "verify",
      "execute",
      "verify",
      "execute",
      "verify",
      "execute",
      "verify",
      "completed",
    ]);
    const done = await loop.goal(goal.goalId);
    expect(done.status).toBe("completed");
    expect(done.planState?.steps.map((s) => [s.id, s.status])).toEqual(FOUR_FILES.map((id) => [id, "done"]));
    // Assess: four execute calls, each paid and counted once, each with its own checkpoint
    expect(model.requestsFor("execute")).toHaveLength(4);
    expect(done.usageByRole.execute?.modelCalls).toBe(4);
    const batchIteration = answered.find((answer) => answer.next === "execute_batch")?.iteration ?? -1;
    const checkpoints = await Promise.all(
      [1, 2, 3, 4].map((ordinal) =>
        table.adapters.goals.getCheckpoint({
          goalId: goal.goalId,
          runId: goal.runId,
          iteration: batchIteration,
          role: "execute",
          ordinal,
        }),
      ),
    );
    expect(checkpoints.map((checkpoint) => checkpoint?.call)).toEqual([0, 1, 2, 3]);
    // Assess: each step has its own step record
    const steps = await table.adapters.stepLog.listRecentSteps(goal.goalId, 10);
    expect(steps).toHaveLength(4);
    expect(done.planState?.batch).toBeUndefined();
    const events = (await table.adapters.goals.listEvents(goal.goalId, {})).items;
    expect(events.filter((event) => event.type === "plan.batch.started")).toHaveLength(1);
  });

  it("acts on the batch's ungated steps first: a gated step waits for its human after the others acted", async () => {
    // Prepare: the first step notifies (irreversible, gated), the three others write
    const goal = await createPlanGoal(table, fourFileSpec());
    const model = new ScriptedModel({
      plan: [
        submitsPlan([
          step("tell", { tool: "notify", action: "Tell the team" }),
          ...["a", "b", "c"].map((id) => step(id, { tool: "workspace_write", action: `Write ${id}.md` })),
        ]),
      ],
      execute: [uses("notify", { channel: "team", message: "2.0 is out" }), ...["a", "b", "c"].map(writes)],
    });
    const loop = new PlanLoopDriver(table, model);

    // Act
    const answered = await loop.run(goal.goalId);

    // Assess: the run waits on the notify step's approval once the three writes were acted on
    expect(lastOf(answered).next).toBe("approval");
    const waiting = await loop.goal(goal.goalId);
    expect(waiting.planState?.steps.map((s) => [s.id, s.status])).toEqual([
      ["tell", "running"],
      ["a", "done"],
      ["b", "done"],
      ["c", "done"],
    ]);
    expect(waiting.actionGate?.outcome).toBe("pending");
    expect(waiting.usageByRole.execute?.modelCalls).toBe(4);
  });

  it("replans only once every step of the batch was observed", async () => {
    // Prepare: step a answers in text (new information → replan), b and c write
    const goal = await createPlanGoal(
      table,
      planSpec({
        successChecks: [
          {
            id: "notes",
            description: "notes.md names 2.0",
            verify: { kind: "artifact", path: "notes.md", contains: "2.0" },
          },
        ],
      }),
    );
    const model = new ScriptedModel({
      plan: [
        submitsPlan([
          step("a", { tool: "http_request", action: "Fetch the changelog" }),
          step("b", { tool: "workspace_write", action: "Write b.md" }),
          step("c", { tool: "workspace_write", action: "Write c.md" }),
        ]),
        submitsPlan([step("notes", { tool: "workspace_write", action: "Write notes.md" })]),
      ],
      execute: [
        answers("No changelog URL is given; write the notes from the objective."),
        writes("b"),
        writes("c"),
        uses("workspace_write", { path: "notes.md", content: "# 2.0" }),
      ],
    });
    const loop = new PlanLoopDriver(table, model);

    // Act
    const answered = await loop.run(goal.goalId);

    // Assess: the replan came after all three steps were acted on, and saw their results
    const nexts = answered.map((answer) => answer.next);
    expect(nexts.slice(0, 10)).toEqual([
      "verify",
      "plan",
      "verify",
      "execute_batch",
      "verify",
      "execute",
      "verify",
      "execute",
      "verify",
      "plan",
    ]);
    expect(lastOf(answered).next).toBe("completed");
    const replanPrompt = JSON.stringify(model.requestsFor("plan")[1]?.messages);
    expect(replanPrompt).toContain("b.md");
    expect(replanPrompt).toContain("c.md");
  });
});
