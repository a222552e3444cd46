import { describe, expect, it } from "vitest";
import { InvariantViolationError } from "../../../lambdas/core/goal/errors";
import type { GoalRecord } from "../../../lambdas/core/goal/goal-record";
import { assertInvariants, checkInvariants } from "../../../lambdas/core/goal/invariants";
import { toSnapshot } from "../../../lambdas/core/goal/snapshot";
import { buildGoal, goalIn, NOW } from "./support";

const lastCycle = {
  runId: "run-1",
  iteration: 0,
  progress: true,
  satisfiedChecks: [],
  at: NOW.toISOString(),
};

const BROKEN: readonly [invariant: number, label: string, record: () => GoalRecord][] = [
  [1, "running without activeTask", () => ({ ...buildGoal(), activeTask: null })],
  [2, "waiting without resumeCondition", () => ({ ...goalIn("waiting"), resumeCondition: null })],
  [2, "waiting without waitingFor", () => ({ ...goalIn("waiting"), waitingFor: null })],
  [3, "completed with unsatisfied checks", () => ({ ...goalIn("completed"), evidence: [] })],
  [4, "progress with noProgressCycles 2", () => ({ ...buildGoal(), lastCycle, noProgressCycles: 2 })],
  [5, "resumed run with the same runId", () => ({ ...buildGoal(), previousRunId: "run-1" })],
];

describe("checkInvariants", () => {
  it("finds nothing wrong with records the core made, in every status", () => {
    // Prepare
    const records = (
      ["running", "waiting", "paused", "failed", "completed", "cancelled", "terminated"] as const
    ).map((status) => goalIn(status));

    // Act
    const violations = records.flatMap((record) => checkInvariants(record));

    // Assess
    expect(violations).toEqual([]);
  });

  it.each(BROKEN)("reports invariant %i: %s", (invariant, _label, record) => {
    // Act
    const violations = checkInvariants(record());

    // Assess
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatch(new RegExp(`^invariant ${invariant}: `));
  });

  it("checks snapshots as e2e tests see them", () => {
    // Prepare
    const snapshot = { ...toSnapshot(goalIn("completed")), unsatisfiedChecks: ["report"] };

    // Act
    const violations = checkInvariants(snapshot);

    // Assess
    expect(violations).toEqual(["invariant 3: a completed goal has unsatisfied checks: report"]);
  });
});

describe("assertInvariants", () => {
  it.each(BROKEN)(
    "throws InvariantViolationError naming invariant %i and the goal (%s)",
    (invariant, _label, record) => {
      // Act
      const attempt = () => assertInvariants(record());

      // Assess
      expect(attempt).toThrow(InvariantViolationError);
      try {
        attempt();
      } catch (error) {
        const violation = error as InvariantViolationError;
        expect(violation.invariant).toBe(invariant);
        expect(violation.goalId).toBe("goal-1");
        expect(violation.message).toContain(`'goal-1' breaks invariant ${invariant}`);
      }
    },
  );

  it("passes a valid record", () => {
    // Act & Assess
    expect(() => assertInvariants(buildGoal())).not.toThrow();
  });
});
