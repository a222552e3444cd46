import { describe, expect, it } from "vitest";
import { readStepHistory } from "../../../lambdas/core/context";
import { EMPTY_USAGE } from "../../../lambdas/core/goal-record";
import type { GoalStore } from "../../../lambdas/core/ports/goal-store";
import type { StepLog, StepRecord } from "../../../lambdas/core/ports/step-log";
import { aStepRecord } from "../../support/loop-store-builders";
import { newGoal } from "../react/support";

/** A step log holding `steps`: the latest `limit` of them, oldest first, as the real one answers. */
function stepLogOf(steps: readonly StepRecord[]): Pick<StepLog, "listRecentSteps"> {
  return { listRecentSteps: async (_goalId, limit) => steps.slice(-limit) };
}

describe("readStepHistory", () => {
  it("reads every step after the newest summary it finds when counted summaries are missing", async () => {
    // Prepare: two summaries counted (steps 1 to 16 summarized), none left in the store.
    const { record: created } = newGoal();
    const record = {
      ...created,
      steps: 20,
      usageByRole: { summarize: { ...EMPTY_USAGE, modelCalls: 2 } },
    };
    const steps = Array.from({ length: 21 }, (_, index) => aStepRecord(record.goalId, index + 1));
    const goals = {
      latestCheckpoint: async () => undefined,
      getCheckpoint: async () => undefined,
    } as unknown as GoalStore;

    // Act
    const history = await readStepHistory({ goals, stepLog: stepLogOf(steps) }, record, 1);

    // Assess: no summary stands for steps 1 to 2 × COMPACTION_STRIDE, so the prompt shows them all.
    expect(history.latest).toBeUndefined();
    expect(history.steps.map((step) => step.step)).toEqual(steps.map((step) => step.step));
  });
});
