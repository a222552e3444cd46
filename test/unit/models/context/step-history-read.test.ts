import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EMPTY_USAGE } from "../../../../lambdas/core/goal/goal-record";
import { readStepHistory } from "../../../../lambdas/core/models/context/compaction";
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
});
