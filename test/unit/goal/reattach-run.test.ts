import { describe, expect, it } from "vitest";
import { GoalStatusError } from "../../../lambdas/core/goal/errors";
import { reattachRun } from "../../../lambdas/core/goal/reattach-run";
import { buildGoal, goalIn, minutesLater } from "./support";

const LATER = minutesLater(5);

describe("reattachRun", () => {
  it("keeps a waiting goal waiting on the same approval in a new run, its gate moved along", () => {
    // Prepare
    const waiting = {
      ...goalIn("waiting"),
      runIteration: 3,
      actionGate: {
        runId: "run-1",
        iteration: 3,
        toolUseIds: ["tu-1"],
        fingerprint: "tools:abc",
        summary: "notify {}",
        approvalId: "appr-1",
        outcome: "pending" as const,
      },
    };

    // Act
    const { record, events } = reattachRun(waiting, { newRunId: "run-2", now: LATER });

    // Assess
    expect(record).toMatchObject({
      status: "waiting",
      runId: "run-2",
      previousRunId: "run-1",
      runIteration: 3,
      waitingFor: waiting.waitingFor,
      resumeCondition: waiting.resumeCondition,
      actionGate: { ...waiting.actionGate, runId: "run-2" },
    });
    expect(events).toEqual([
      expect.objectContaining({
        type: "run.reattached",
        runId: "run-2",
        previousRunId: "run-1",
        status: "waiting",
        approvalId: "appr-1",
      }),
    ]);
  });

  it("restarts a running goal's loop at iteration 0 of a new run", () => {
    // Prepare
    const running = { ...buildGoal(), runIteration: 4, steps: 4, activeTask: "act" };

    // Act
    const { record, events } = reattachRun(running, { newRunId: "run-2", now: LATER });

    // Assess
    expect(record).toMatchObject({
      status: "running",
      runId: "run-2",
      previousRunId: "run-1",
      runIteration: 0,
      steps: 4,
      activeTask: "load",
    });
    expect(events[0]).toMatchObject({ type: "run.reattached", status: "running", approvalId: null });
  });

  it("refuses to reuse the current runId (invariant 5)", () => {
    // Act
    const attempt = () => reattachRun(buildGoal(), { newRunId: "run-1", now: LATER });

    // Assess
    expect(attempt).toThrow(/invariant 5/);
  });

  it.each(["paused", "failed", "completed", "cancelled", "terminated"] as const)(
    "refuses a %s goal: nothing of it was running",
    (status) => {
      // Act
      const attempt = () => reattachRun(goalIn(status), { newRunId: "run-2", now: LATER });

      // Assess
      expect(attempt).toThrow(GoalStatusError);
    },
  );
});
