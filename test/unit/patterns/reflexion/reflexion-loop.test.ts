import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LESSONS_HEADING } from "../../../../lambdas/core/patterns/reflexion/attempt-prompt";
import {
  calls,
  type GoalTable,
  lastUserText,
  ScriptedModel,
  says,
  startGoalTable,
  writes,
} from "../../loop/support";
import {
  createReflexionGoal,
  FAST_MODEL_ID,
  HEAVY_MODEL_ID,
  ReflexionLoopDriver,
  reflexionSpec,
} from "./support";

const DRAFTS = [
  "Version 2.0 is out.",
  "Version 2.0 is out with faster loops.",
  "Version 2.0 is out. Upgrade with: npm install goal-loops@2",
];
const LESSON_1 = "The note named no upgrade step; the next attempt must tell users how to upgrade.";
const LESSON_2 = "It listed features but still no command; include the exact npm install command.";
/**
 * What a run answers through two attempts: the first attempted, evaluated, reflected on, then the
 * second attempted and evaluated.
 */
const TWO_ATTEMPTS = ["verify", "attempt", "verify", "reflect", "attempt", "verify"];

describe("Reflexion loop steps", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });

  afterAll(async () => {
    await table?.stop();
  });

  it("fails twice, stores two lessons, shows both to the third attempt, then completes", async () => {
    // Prepare
    const goal = await createReflexionGoal(table, reflexionSpec());
    const model = new ScriptedModel({
      attempt: DRAFTS.map((draft) => writes("note.md", draft)),
      evaluate: [
        says("FAIL: no upgrade step."),
        says("FAIL: still no command."),
        says("PASS: names npm install."),
      ],
      reflect: [says(`  ${LESSON_1}\n`), says(LESSON_2)],
    });
    const loop = new ReflexionLoopDriver(table, model);

    // Act
    const answers = await loop.run(goal.goalId);

    // Assess
    expect(answers.map((answer) => answer.next)).toEqual([
      ...TWO_ATTEMPTS,
      "reflect",
      "attempt",
      "verify",
      "completed",
    ]);
    const done = await loop.goal(goal.goalId);
    expect(done.status).toBe("completed");
    expect(done.attempts).toBe(3);
    expect(done.lessons?.map(({ attempt, text }) => ({ attempt, text }))).toEqual([
      { attempt: 1, text: LESSON_1 },
      { attempt: 2, text: LESSON_2 },
    ]);
    expect(done.evidence).toEqual([
      expect.objectContaining({ checkId: "actionable", kind: "model_judge", strength: "weak" }),
    ]);
    const [first, second, third] = model.requestsFor("attempt").map(lastUserText);
    expect(first).toContain(LESSONS_HEADING);
    expect(first).toContain("none yet");
    expect(first).toContain("Success checks not yet satisfied: actionable");
    expect(second).toContain(`Attempt 1: ${LESSON_1}`);
    expect(second).not.toContain(LESSON_2);
    expect(third).toContain("Attempt 3 of 3.");
    expect(third).toContain(`- Attempt 1: ${LESSON_1}`);
    expect(third).toContain(`- Attempt 2: ${LESSON_2}`);
    const types = (await loop.events(goal.goalId)).map((event) => event.type);
    expect(types.filter((type) => type === "lesson.recorded")).toHaveLength(2);
    expect(types.filter((type) => type === "attempt.started")).toHaveLength(3);
  });

  it("evaluates model_judge checks with the evaluate role on the fast model, never judge", async () => {
    // Prepare
    const goal = await createReflexionGoal(table, reflexionSpec());
    const model = new ScriptedModel({
      attempt: [writes("note.md", DRAFTS[2] as string)],
      evaluate: [says("PASS: names npm install.")],
    });
    const loop = new ReflexionLoopDriver(table, model);

    // Act
    await loop.run(goal.goalId);

    // Assess
    const done = await loop.goal(goal.goalId);
    expect(done.status).toBe("completed");
    expect(model.requestsFor("judge")).toEqual([]);
    const [evaluation] = model.requestsFor("evaluate");
    expect(evaluation).toMatchObject({ role: "evaluate", modelId: FAST_MODEL_ID, call: 0 });
    expect(lastUserText(evaluation)).toContain(DRAFTS[2]);
    expect(model.requestsFor("attempt")[0]?.modelId).toBe(HEAVY_MODEL_ID);
    expect(done.usageByRole.evaluate?.modelCalls).toBe(1);
    expect(done.usageByRole.judge?.modelCalls ?? 0).toBe(0);
    const checkpoint = await table.adapters.goals.getCheckpoint({
      goalId: goal.goalId,
      runId: "r1",
      // The attempt's iteration: Evaluate judges the step before its cycle moves the run on.
      iteration: 0,
      role: "evaluate",
      ordinal: 0,
    });
    expect(checkpoint?.turn.content).toEqual([{ text: "PASS: names npm install." }]);
  });

  it("asks the reflector on the heavy model about the failed attempt: its output, the unsatisfied check and the verdict", async () => {
    // Prepare
    const goal = await createReflexionGoal(table, reflexionSpec());
    const model = new ScriptedModel({
      attempt: [writes("note.md", DRAFTS[0] as string), writes("note.md", DRAFTS[2] as string)],
      evaluate: [says("FAIL: no upgrade step."), says("PASS")],
      reflect: [says(LESSON_1)],
    });
    const loop = new ReflexionLoopDriver(table, model);

    // Act
    await loop.run(goal.goalId);

    // Assess
    const [reflection] = model.requestsFor("reflect");
    expect(reflection?.modelId).toBe(HEAVY_MODEL_ID);
    const question = lastUserText(reflection);
    expect(question).toContain("Attempt 1 failed");
    expect(question).toContain("- actionable: note.md tells users how to upgrade");
    expect(question).toContain("Evaluator: FAIL: no upgrade step.");
    expect(question).toContain(`File note.md:\n${DRAFTS[0]}`);
    expect((await loop.goal(goal.goalId)).usageByRole.reflect?.modelCalls).toBe(1);
  });

  it("waits for a human decision once maxAttempts attempts failed, without reflecting on the last", async () => {
    // Prepare
    const goal = await createReflexionGoal(
      table,
      reflexionSpec({
        successChecks: [
          {
            id: "upgrade-command",
            description: "note.md names the upgrade command",
            verify: { kind: "artifact", path: "note.md", contains: "npm install" },
          },
        ],
        limits: { maxAttempts: 2 },
      }),
    );
    const model = new ScriptedModel({
      attempt: [writes("note.md", DRAFTS[0] as string), writes("note.md", DRAFTS[1] as string)],
      reflect: [says(LESSON_1)],
    });
    const loop = new ReflexionLoopDriver(table, model);

    // Act
    const answers = await loop.run(goal.goalId);

    // Assess
    expect(answers.map((answer) => answer.next)).toEqual([...TWO_ATTEMPTS, "limit_decision"]);
    const stopped = await loop.goal(goal.goalId);
    expect(stopped.status).toBe("running");
    expect(stopped.attempts).toBe(2);
    expect(stopped.lessons).toHaveLength(1);
    expect(model.requestsFor("attempt")).toHaveLength(2);
    expect(model.requestsFor("evaluate")).toEqual([]);
  });

  it("gates an attempt's irreversible tool call like ReAct: approval, with a pending gate", async () => {
    // Prepare
    const goal = await createReflexionGoal(table, reflexionSpec({ tools: ["workspace_write", "notify"] }));
    const model = new ScriptedModel({
      attempt: [calls("notify", { channel: "ops", message: "2.0 is out" })],
    });
    const loop = new ReflexionLoopDriver(table, model);

    // Act
    const answers = await loop.run(goal.goalId);

    // Assess
    expect(answers.map((answer) => answer.next)).toEqual(["verify", "attempt", "approval"]);
    const waiting = await loop.goal(goal.goalId);
    expect(waiting.actionGate).toMatchObject({ runId: "r1", iteration: 0, outcome: "pending" });
    expect(waiting.attempts).toBe(1);
  });
});
