import { describe, expect, it } from "vitest";
import { GoalStatusError } from "../../../lambdas/core/goal/errors";
import { reached } from "../../../lambdas/core/goal/loop-marker";
import { reattachRun } from "../../../lambdas/core/goal/reattach-run";
import { checkpointRunId } from "../../../lambdas/core/goal/run-takeover";
import { gateOf } from "../../../lambdas/core/loop/gates/action-gate";
import { buildGoal, goalIn, minutesLater } from "./support";

const LATER = minutesLater(5);

describe("reattachRun", () => {
  it("keeps a waiting goal waiting on the same approval in a new run, its gate the new run's through its lineage", () => {
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
      actionGate: waiting.actionGate,
      takeover: { runId: "run-1", iteration: 3 },
    });
    expect(gateOf(record, { runId: "run-2", iteration: 3 })).toEqual(waiting.actionGate);
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

  it("takes over a running goal's iteration in a new run, its model calls still under the old run", () => {
    // Prepare: run-1 reasoned in iteration 4 and died before acting
    const running = {
      ...buildGoal(),
      runIteration: 4,
      steps: 4,
      activeTask: "act",
      loop: { runId: "run-1", iteration: 4, phase: "reasoned" as const },
    };

    // Act
    const { record, events } = reattachRun(running, { newRunId: "run-2", now: LATER });

    // Assess
    expect(record).toMatchObject({
      status: "running",
      runId: "run-2",
      previousRunId: "run-1",
      runIteration: 4,
      steps: 4,
      activeTask: "load",
      takeover: { runId: "run-1", iteration: 4, phase: "reasoned" },
    });
    expect(reached(record, "run-2", 4, "reasoned")).toBe(true);
    expect(reached(record, "run-2", 4, "acted")).toBe(false);
    expect(checkpointRunId(record, { runId: "run-2", iteration: 4 })).toBe("run-1");
    expect(checkpointRunId(record, { runId: "run-2", iteration: 5 })).toBe("run-1");
    expect(checkpointRunId(record, { runId: "run-1", iteration: 4 })).toBe("run-1");
    expect(events[0]).toMatchObject({
      type: "run.reattached",
      status: "running",
      iteration: 4,
      approvalId: null,
    });
  });

  it("passes the oldest run on when a run that took over is taken over in its turn", () => {
    // Prepare
    const first = reattachRun({ ...buildGoal(), runIteration: 2 }, { newRunId: "run-2", now: LATER }).record;
    const later = {
      ...first,
      runIteration: 3,
      loop: { runId: "run-2", iteration: 3, phase: "verified" as const },
    };

    // Act
    const { record } = reattachRun(later, { newRunId: "run-3", now: LATER });

    // Assess
    expect(record.takeover).toEqual({ runId: "run-1", iteration: 3, phase: "verified" });
    expect(checkpointRunId(record, { runId: "run-3", iteration: 3 })).toBe("run-1");
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
