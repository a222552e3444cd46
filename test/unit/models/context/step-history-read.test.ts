import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EMPTY_USAGE } from "../../../../lambdas/core/goal/goal-record";
import { readStepHistory, readStepHistoryEarly } from "../../../../lambdas/core/models/context/compaction";
import type { StepLog } from "../../../../lambdas/core/ports/step-log";
import { aStepRecord } from "../../../support/loop-store-builders";
import { newGoal, type ServedGoalTable, startGoalTable } from "../../loop/support";

describe("readStepHistory on dynalite", () => {
  let table: ServedGoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });

  afterAll(async () => {
    await table.stop();
  });

  it("reads every step after the newest summary it finds when counted summaries are missing", async () => {
    // Prepare: two summaries counted (steps 1 to 16 summarized), none of them in the store.
    const { record: created } = newGoal();
    const record = {
      ...created,
      steps: 20,
      usageByRole: { summarize: { ...EMPTY_USAGE, modelCalls: 2 } },
    };
    const steps = Array.from({ length: 21 }, (_, index) => aStepRecord(record.goalId, index + 1));
    for (const step of steps) await table.adapters.stepLog.putStep(step);

    // Act
    const history = await readStepHistory(table.adapters, record, 1);

    // Assess: no summary stands for steps 1 to 2 × COMPACTION_STRIDE, so the prompt shows them all.
    expect(history.latest).toBeUndefined();
    expect(history.steps.map((step) => step.step)).toEqual(steps.map((step) => step.step));
  });

  /** Steps 1 to `count` logged for a new goal, and a step log that counts its queries. */
  async function loggedGoal(count: number) {
    const { record } = newGoal();
    for (let step = 1; step <= count; step += 1) {
      await table.adapters.stepLog.putStep(aStepRecord(record.goalId, step));
    }
    const queries: number[] = [];
    const stepLog: StepLog = {
      listRecentSteps: (goalId, limit) => {
        queries.push(limit);
        return table.adapters.stepLog.listRecentSteps(goalId, limit);
      },
      putStep: (step) => table.adapters.stepLog.putStep(step),
    };
    return { record, ports: { goals: table.adapters.goals, stepLog }, queries };
  }

  it("uses the step query started from a guess when the goal as read needs the same steps", async () => {
    // Prepare: 3 steps counted, the 4th logged; the guess is the goal as it is.
    const { record: created, ports, queries } = await loggedGoal(4);
    const record = { ...created, steps: 3 };

    // Act
    const early = readStepHistoryEarly(ports, record.goalId, record, 1);
    await early.recent;
    const history = await readStepHistory(ports, record, 1, early);

    // Assess: one query, the one started early (done before the read), and the history a late read gives.
    expect(queries).toEqual([4]);
    expect(history).toEqual(await readStepHistory(table.adapters, record, 1));
  });

  it("queries the steps again when the guess needed other steps than the goal as read", async () => {
    // Prepare: the guess is a version one step behind (another writer counted step 3 since).
    const { record: created, ports, queries } = await loggedGoal(4);
    const record = { ...created, steps: 3 };
    const stale = { ...created, steps: 1 };

    // Act
    const early = readStepHistoryEarly(ports, record.goalId, stale, 1);
    const history = await readStepHistory(ports, record, 1, early);

    // Assess: the early query went for 2 steps, is not used, and the history is the goal's.
    expect([...queries].sort((a, b) => a - b)).toEqual([2, 4]);
    expect(history.steps.map((step) => step.step)).toEqual([1, 2, 3, 4]);
    expect(history).toEqual(await readStepHistory(table.adapters, record, 1));
  });
});
