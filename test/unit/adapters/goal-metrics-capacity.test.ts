import { describe, expect, it } from "vitest";
import { GOAL_METRICS, metricsOfChange } from "../../../lambdas/adapters/metrics/goal-metrics";
import { aGoalRecord } from "../../support/goal-record-builder";

describe("metricsOfChange for capacity waits", () => {
  it("counts each capacity.waiting event once, by reason and by model", () => {
    // Act
    const batches = metricsOfChange(aGoalRecord(), [
      {
        type: "capacity.waiting",
        at: "2026-12-07T10:00:00.000Z",
        model: "m-1",
        reason: "throttled",
        role: "reason",
      },
    ]);

    // Assess
    expect(batches).toEqual([
      {
        dimensionSets: [{ Reason: "throttled" }, { Model: "m-1" }],
        values: [{ name: GOAL_METRICS.capacityWaits, unit: "Count", value: 1 }],
      },
    ]);
  });
});
