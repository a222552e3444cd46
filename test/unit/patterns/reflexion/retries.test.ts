import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GoalRecord } from "../../../../lambdas/core/goal/goal-record";
import type { StepResult } from "../../../../lambdas/core/loop/step-result";
import type { GoalStore } from "../../../../lambdas/core/ports/goal-store";
import {
  crashAfterCheckpoint,
  diesAtCommit,
  type GoalTable,
  InjectedCrash,
  ScriptedModel,
  says,
  startGoalTable,
  writes,
} from "../../loop/support";
import { createReflexionGoal, ReflexionLoopDriver, reflexionSpec } from "./support";

/** A run that has made one failed attempt and has Evaluate, Reflect and Attempt ahead of it. */
async function oneFailedAttempt(table: GoalTable) {
  const goal = await createReflexionGoal(table, reflexionSpec());
  const model = new ScriptedModel({
    attempt: [
      writes("note.md", "Version 2.0 is out."),
      writes("note.md", "Upgrade: npm install goal-loops@2"),
    ],
    evaluate: [says("FAIL: no upgrade step."), says("PASS")],
    reflect: [says("Name the upgrade command.")],
  });
  const loop = new ReflexionLoopDriver(table, model);
  const loaded = await loop.load(goal.goalId);
  const attempting = await loop.evaluate(loaded);
  // Attempt runs the write it asked for itself (no approval needed) and answers `verify`.
  const evaluating = await loop.attempt(attempting);
  return { goal, model, loop, evaluating };
}

function calls(record: GoalRecord) {
  const { attempt, evaluate, reflect } = record.usageByRole;
  return {
    attempt: attempt?.modelCalls ?? 0,
    evaluate: evaluate?.modelCalls ?? 0,
    reflect: reflect?.modelCalls ?? 0,
    total: record.usage.modelCalls,
  };
}

describe("Reflexion steps retried", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });

  afterAll(async () => {
    await table?.stop();
  });

  it("repeats nothing when a step that already answered runs again", async () => {
    // Prepare
    const { goal, model, loop, evaluating } = await oneFailedAttempt(table);

    // Act
    const evaluated = [await loop.evaluate(evaluating), await loop.evaluate(evaluating)];
    const reflected = [
      await loop.reflect(evaluated[0] as StepResult),
      await loop.reflect(evaluated[0] as StepResult),
    ];
    const attempted = [
      await loop.attempt(reflected[0] as StepResult),
      await loop.attempt(reflected[0] as StepResult),
    ];

    // Assess
    expect(evaluated[1]).toEqual(evaluated[0]);
    expect(evaluated[0]?.next).toBe("reflect");
    expect(reflected[1]).toEqual(reflected[0]);
    expect(reflected[0]?.next).toBe("attempt");
    expect(attempted[1]).toEqual(attempted[0]);
    expect(attempted[0]?.next).toBe("verify");
    expect(model.requestsFor("evaluate")).toHaveLength(1);
    expect(model.requestsFor("reflect")).toHaveLength(1);
    expect(model.requestsFor("attempt")).toHaveLength(2);
    const record = await loop.goal(goal.goalId);
    expect(calls(record)).toEqual({ attempt: 2, evaluate: 1, reflect: 1, total: 4 });
    expect(record.attempts).toBe(2);
    expect(record.steps).toBe(1);
    expect(record.lessons).toHaveLength(1);
    const types = (await loop.events(goal.goalId)).map((event) => event.type);
    expect(types.filter((type) => type === "lesson.recorded")).toHaveLength(1);
    expect(types.filter((type) => type === "attempt.started")).toHaveLength(2);
  });

  it("acts once when Attempt dies after its step was logged and before Act's commit: the retry reuses the step", async () => {
    // Prepare
    const goal = await createReflexionGoal(table, reflexionSpec());
    const model = new ScriptedModel({ attempt: [writes("note.md", "Version 2.0 is out.")] });
    const loop = new ReflexionLoopDriver(table, model);
    const attempting = await loop.evaluate(await loop.load(goal.goalId));
    // Commit 1 counts the attempt; commit 2 would mark it acted.
    await expect(loop.attempt(attempting, diesAtCommit(table.adapters.goals, 2))).rejects.toThrow(
      "died at commit 2",
    );

    // Act: the state machine's Retry
    const retried = await loop.attempt(attempting);

    // Assess
    expect(retried).toMatchObject({ iteration: attempting.iteration + 1, next: "verify" });
    const record = await loop.goal(goal.goalId);
    expect(record.loop).toMatchObject({ iteration: attempting.iteration, phase: "acted" });
    expect(record.attempts).toBe(1);
    expect(model.requestsFor("attempt")).toHaveLength(1);
    expect((await table.adapters.workspace.readFile(goal.goalId, "note.md"))?.version).toBe(1);
    expect(await table.adapters.stepLog.listRecentSteps(goal.goalId, 10)).toHaveLength(1);
  });

  it.each([
    ["Evaluate", "evaluate"],
    ["Reflect", "reflect"],
    ["Attempt", "attempt"],
  ] as const)(
    "pays once when %s crashes after its model call was checkpointed; the retry completes the goal",
    async (_state, role) => {
      // Prepare
      const { goal, model, loop, evaluating } = await oneFailedAttempt(table);
      // Only the first new checkpoint of `role` crashes its step, whichever step gets the store.
      const crashing = crashAfterCheckpoint(table.adapters.goals, role);
      let crashes = 0;

      // Act: the state machine's loop; Retry runs a crashed state again with the same input
      let position = evaluating;
      for (let transitions = 0; transitions < 20; transitions += 1) {
        const state = (goals?: GoalStore) => loop.step(position, goals);
        const running = state(crashing);
        if (!running) break;
        position = await running.catch((error: unknown) => {
          if (!(error instanceof InjectedCrash)) throw error;
          crashes += 1;
          return state() as Promise<StepResult>;
        });
      }

      // Assess
      expect(crashes).toBe(1);
      expect(position.next).toBe("completed");
      const record = await loop.goal(goal.goalId);
      expect(record.status).toBe("completed");
      // One call of the crashed role per checkpoint: reflect once, attempt and evaluate twice in all.
      expect(model.requestsFor(role)).toHaveLength(role === "reflect" ? 1 : 2);
      expect(calls(record)).toEqual({ attempt: 2, evaluate: 2, reflect: 1, total: 5 });
      expect(record.attempts).toBe(2);
      expect(record.lessons).toHaveLength(1);
    },
  );
});
