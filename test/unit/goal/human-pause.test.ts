import { describe, expect, it } from "vitest";
import { GoalStatusError } from "../../../lambdas/core/goal/errors";
import { cancel, resume, resumeFromWait } from "../../../lambdas/core/goal/goal-lifecycle";
import type { GoalRecord } from "../../../lambdas/core/goal/goal-record";
import { pauseAsRequested, requestPause, withdrawPause } from "../../../lambdas/core/goal/human-pause";
import { checkInvariants } from "../../../lambdas/core/goal/invariants";
import { markLoop } from "../../../lambdas/core/goal/loop-marker";
import { toSnapshot } from "../../../lambdas/core/goal/snapshot";
import { buildGoal, frozen, goalIn, minutesLater, NOW } from "./support";

const ASK = { by: "ann", channel: "api", reason: "lunch" } as const;

function requested(record: GoalRecord): GoalRecord {
  const change = requestPause(record, ASK, NOW);
  if (!change) throw new Error("the request was not recorded");
  return frozen(change);
}

describe("a human pause", () => {
  it("records the request on a running goal, which keeps running until its step boundary", () => {
    // Act
    const change = requestPause(buildGoal(), ASK, NOW);

    // Assess
    expect(change?.record).toMatchObject({
      status: "running",
      pauseRequest: { by: "ann", channel: "api", reason: "lunch", at: NOW.toISOString() },
    });
    expect(change?.events).toEqual([
      expect.objectContaining({
        type: "goal.pause_requested",
        by: "ann",
        reason: "lunch",
        status: "running",
      }),
    ]);
    expect(toSnapshot(change?.record ?? buildGoal()).pauseRequested).toMatchObject({ by: "ann" });
  });

  it("changes nothing when asked again before it took effect", () => {
    // Act
    const again = requestPause(requested(buildGoal()), { by: "bob", channel: "cli" }, minutesLater(1));

    // Assess
    expect(again).toBeUndefined();
  });

  it.each(["paused", "completed", "cancelled", "terminated", "failed"] as const)(
    "refuses a %s goal with GoalStatusError naming the status",
    (status) => {
      // Act
      const act = () => requestPause(goalIn(status), ASK, NOW);

      // Assess
      expect(act).toThrow(GoalStatusError);
      expect(act).toThrow(`but it is '${status}'`);
    },
  );

  it("pauses at the boundary with a human stop reason, and the request is met", () => {
    // Act
    const change = pauseAsRequested(requested(buildGoal()), minutesLater(1));

    // Assess
    expect(change?.record).toMatchObject({
      status: "paused",
      activeTask: null,
      stopReason: { kind: "human", detail: "ann", message: "lunch" },
    });
    expect(change?.record.pauseRequest).toBeUndefined();
    expect(change?.events).toEqual([
      expect.objectContaining({ type: "goal.paused", by: "human", requestedBy: "ann", reason: "lunch" }),
    ]);
    expect(checkInvariants(change?.record ?? buildGoal())).toEqual([]);
  });

  it("keeps a waiting goal waiting (invariant 2), and pauses it at the first boundary after its wait", () => {
    // Prepare
    const waiting = requested(goalIn("waiting"));

    // Act
    const atWait = pauseAsRequested(waiting, minutesLater(1));
    const woken = frozen(
      resumeFromWait(
        waiting,
        { eventType: "Approval Decided", approvalId: "appr-1" },
        "act",
        minutesLater(2),
      ),
    );
    const after = pauseAsRequested(woken, minutesLater(3));

    // Assess
    expect(atWait).toBeUndefined();
    expect(checkInvariants(waiting)).toEqual([]);
    expect(woken.pauseRequest).toMatchObject({ by: "ann" });
    expect(after?.record.status).toBe("paused");
  });

  it("is withdrawn by a resume that comes first; the goal runs on", () => {
    // Act
    const change = withdrawPause(requested(buildGoal()), "bob", minutesLater(1));

    // Assess
    expect(change?.record).toMatchObject({ status: "running" });
    expect(change?.record.pauseRequest).toBeUndefined();
    expect(change?.events).toEqual([
      expect.objectContaining({ type: "goal.pause_withdrawn", by: "bob", requestedBy: "ann" }),
    ]);
    expect(withdrawPause(buildGoal(), "bob", NOW)).toBeUndefined();
  });

  it("is dropped when the goal ends first (a cancel)", () => {
    // Act
    const cancelled = cancel(requested(buildGoal()), "bob", "not needed", minutesLater(1));

    // Assess
    expect(cancelled.record.status).toBe("cancelled");
    expect(cancelled.record.pauseRequest).toBeUndefined();
    expect(pauseAsRequested(cancelled.record, minutesLater(2))).toBeUndefined();
  });

  it("resumes by taking over the iteration it paused in: a turn counted before the pause is acted on, not paid again", () => {
    // Prepare: iteration 3's reason turn was counted by the same commit that applied the pause
    const base = frozen({ record: { ...buildGoal(), runIteration: 3, noProgressCycles: 2 }, events: [] });
    const reasoned = frozen(
      markLoop(requested(base), { runId: "run-1", iteration: 3, phase: "reasoned" }, "act", NOW),
    );
    const paused = frozen(pauseAsRequested(reasoned, minutesLater(1)) ?? { record: reasoned, events: [] });

    // Act
    const resumed = resume(paused, { newRunId: "run-2", now: minutesLater(2), by: "ann" });

    // Assess
    expect(resumed.record).toMatchObject({
      status: "running",
      runId: "run-2",
      previousRunId: "run-1",
      runIteration: 3,
      noProgressCycles: 2,
      takeover: { runId: "run-1", iteration: 3, phase: "reasoned" },
      stopReason: null,
    });
    expect(resumed.events).toEqual([
      expect.objectContaining({
        type: "goal.resumed",
        how: "takeover",
        iteration: 3,
        previousRunId: "run-1",
      }),
    ]);
    expect(checkInvariants(resumed.record)).toEqual([]);
  });

  it("leaves a pause by the system as it was: a new run at iteration 0 with a fresh no-progress count", () => {
    // Act
    const resumed = resume(goalIn("paused"), { newRunId: "run-2", now: minutesLater(2) });

    // Assess
    expect(resumed.record).toMatchObject({ runId: "run-2", runIteration: 0, noProgressCycles: 0 });
    expect(resumed.record.takeover).toBeUndefined();
    expect(resumed.events).toEqual([expect.objectContaining({ type: "goal.resumed", how: "new_run" })]);
  });
});
