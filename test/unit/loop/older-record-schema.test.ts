import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryGoalPartition } from "../../../lambdas/adapters/dynamodb/dynamodb-goal-partition";
import {
  CHECKPOINT_PREFIX,
  STEP_PREFIX,
  STEP_STATE_PREFIX,
} from "../../../lambdas/adapters/dynamodb/goal-table-keys";
import { RECORD_SCHEMA } from "../../../lambdas/core/goal/record-schema";
import { PlanLoopDriver, planSpec, step, submitsPlan, uses } from "../patterns/plan-execute/support";
import { ReflexionLoopDriver, reflexionSpec } from "../patterns/reflexion/support";
import {
  newGoal,
  ReactLoopDriver,
  reactSpec,
  ScriptedModel,
  type ServedGoalTable,
  says,
  startGoalTable,
  writes,
} from "./support";

/**
 * A goal stored in an older record schema (one started before versions existed is stored in schema 1,
 * and each of its runs starts on the live version) runs on under today's code: every item its steps
 * write must stay readable by the code of that schema, so a rollback to it does not strand the goal on
 * its own steps (RecordSchemaTooNew).
 */
describe("a ReAct iteration of a goal stored in an older record schema", () => {
  let table: ServedGoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });

  afterAll(async () => {
    await table?.stop();
  });

  /** The goal's items whose sort key starts with `prefix`, as the table holds them. */
  function itemsOf(goalId: string, prefix: string): Promise<Record<string, unknown>[]> {
    return queryGoalPartition(table.documents, {
      tableName: table.tableName,
      goalId,
      prefix,
      operation: "test",
    });
  }

  /**
   * Every step record, checkpoint and step state of the goal as the code of `schema` wrote them: its
   * `schema` attribute (none in schema 1), documents as plain maps (not one encoded Binary), a
   * checkpoint's goal and role beside its key, a state's format. Answers how many of each there are.
   */
  async function expectWrittenIn(goalId: string, schema: number) {
    const steps = await itemsOf(goalId, STEP_PREFIX);
    const checkpoints = await itemsOf(goalId, CHECKPOINT_PREFIX);
    const states = await itemsOf(goalId, STEP_STATE_PREFIX);
    for (const item of [...steps, ...checkpoints])
      expect(item.schema).toBe(schema === 1 ? undefined : schema);
    for (const item of steps) expect(item.record).toMatchObject({ goalId });
    for (const item of checkpoints) {
      expect(item).toMatchObject({ goalId, checkpoint: { key: { goalId } } });
      expect(item.role).toBe((item.checkpoint as { key: { role: string } }).key.role);
    }
    for (const item of states) expect(item.format).toBe(schema);
    return {
      steps: steps.length,
      roles: checkpoints.map((item) => item.role),
      states: states.length,
    };
  }

  it.each([1, 2])(
    "writes its step records, checkpoints and step states in schema %i, and completes",
    async (schema) => {
      // Prepare: the goal item in that schema (the record says so, as a goal read from it does).
      const { record, events } = newGoal(reactSpec());
      await table.adapters.goals.createGoal({ ...record, schema }, events);
      const model = new ScriptedModel({
        reason: [
          writes("out/haiku.md", "autumn leaves drifting\nquiet light on the water\nthe year exhales slow"),
        ],
      });
      const loop = new ReactLoopDriver(table, model);

      // Act: reason, act, verify (which counts the step, records its state and completes the goal).
      await loop.run(record.goalId);

      // Assess
      const goal = await loop.goal(record.goalId);
      expect(goal.status).toBe("completed");
      expect(goal.schema).toBe(schema);
      expect(await expectWrittenIn(record.goalId, schema)).toEqual({
        steps: 1,
        roles: ["reason"],
        states: 1,
      });
    },
  );

  it("writes a Reflexion goal's attempt, evaluate and reflect calls and its step states in schema 1", async () => {
    // Prepare
    const { record, events } = newGoal(reflexionSpec(), { pattern: "reflexion" });
    await table.adapters.goals.createGoal({ ...record, schema: 1 }, events);
    const model = new ScriptedModel({
      attempt: [
        writes("note.md", "2.0 is out."),
        writes("note.md", "Upgrade with: npm install goal-loops@2"),
      ],
      evaluate: [says("FAIL: no upgrade step."), says("PASS: names npm install.")],
      reflect: [says("Name the upgrade command.")],
    });
    const loop = new ReflexionLoopDriver(table, model);

    // Act
    await loop.run(record.goalId);

    // Assess
    expect((await loop.goal(record.goalId)).status).toBe("completed");
    const written = await expectWrittenIn(record.goalId, 1);
    expect([...written.roles].sort()).toEqual(["attempt", "attempt", "evaluate", "evaluate", "reflect"]);
    expect(written.states).toBe(2);
  });

  it("writes a Plan-and-Execute goal's plan and execute calls and its step states in schema 1", async () => {
    // Prepare
    const { record, events } = newGoal(planSpec(), { pattern: "plan_execute" });
    await table.adapters.goals.createGoal({ ...record, schema: 1 }, events);
    const model = new ScriptedModel({
      plan: [
        submitsPlan([
          step("list", { tool: "workspace_list" }),
          step("write", { tool: "workspace_write", action: "Write notes.md", dependsOn: ["list"] }),
        ]),
      ],
      execute: [
        uses("workspace_list", {}),
        uses("workspace_write", { path: "notes.md", content: "# 2.0\n\nPlans, steps and evidence." }),
      ],
    });
    const loop = new PlanLoopDriver(table, model);

    // Act
    await loop.run(record.goalId);

    // Assess
    expect((await loop.goal(record.goalId)).status).toBe("completed");
    const written = await expectWrittenIn(record.goalId, 1);
    expect([...written.roles].sort()).toEqual(["execute", "execute", "plan"]);
    expect(written.steps).toBe(2);
  });

  it("writes those of a goal of today's schema as before: encoded, with its schema", async () => {
    // Prepare
    const { record, events } = newGoal(reactSpec());
    await table.adapters.goals.createGoal(record, events);
    const model = new ScriptedModel({ reason: [writes("out/haiku.md", "autumn"), says("Done.")] });
    const loop = new ReactLoopDriver(table, model);

    // Act
    await loop.run(record.goalId);

    // Assess
    const [step] = await itemsOf(record.goalId, STEP_PREFIX);
    const [checkpoint] = await itemsOf(record.goalId, CHECKPOINT_PREFIX);
    const [state] = await itemsOf(record.goalId, STEP_STATE_PREFIX);
    expect(Object.keys(step ?? {}).sort()).toEqual(["pk", "record", "schema", "sk"]);
    expect(step?.record).toBeInstanceOf(Uint8Array);
    expect(Object.keys(checkpoint ?? {}).sort()).toEqual(["checkpoint", "pk", "schema", "sk"]);
    expect(checkpoint?.checkpoint).toBeInstanceOf(Uint8Array);
    expect(state?.format).toBe(RECORD_SCHEMA);
  });
});
