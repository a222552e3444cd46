import { describe, expect, it } from "vitest";
import { GoalStatusError, ValidationError } from "../../../lambdas/core/goal/errors";
import { resumeFromWait } from "../../../lambdas/core/goal/goal-lifecycle";
import type { GoalRecord } from "../../../lambdas/core/goal/goal-record";
import {
  awaitLimitDecision,
  checkLimits,
  extendLimits,
  type LimitReached,
  type LimitsPatch,
  recordAttempt,
  recordReplan,
  terminateOnLimitTimeout,
} from "../../../lambdas/core/goal/limits";
import { buildGoal, frozen, goalIn, minutesLater, NOW } from "./support";

const LATER = minutesLater(5);

function withCost(record: GoalRecord, costUsd: number): GoalRecord {
  return { ...record, usage: { ...record.usage, costUsd } };
}

describe("checkLimits", () => {
  it("returns undefined while no limit is reached", () => {
    // Act & Assess
    expect(checkLimits(buildGoal(), LATER)).toBeUndefined();
  });

  it.each<[string, () => GoalRecord, Date, string]>([
    ["maxSteps", () => ({ ...buildGoal(), steps: 25 }), LATER, "25 of 25 steps"],
    ["maxCostUsd", () => withCost(buildGoal(), 1.2), LATER, "$1.2 spent of $1"],
    [
      "deadline",
      () => buildGoal({ limits: { deadline: "2025-06-01T12:30:00+00:00" } }),
      minutesLater(30),
      "2025-06-01T12:30:00+00:00 has passed",
    ],
    ["maxReplans", () => ({ ...buildGoal(), replans: 4 }), LATER, "replan 4 requested, 3 allowed"],
    ["maxAttempts", () => ({ ...buildGoal(), attempts: 3 }), LATER, "3 of 3 attempts"],
  ])("reports %s", (detail, record, now, message) => {
    // Act
    const limit = checkLimits(record(), now);

    // Assess
    expect(limit).toEqual({ kind: "limit", detail, message: expect.stringContaining(message) });
  });

  it("does not report a limit just below it", () => {
    // Prepare
    const record = {
      ...withCost(buildGoal({ limits: { deadline: "2025-06-01T12:30:00Z" } }), 0.99),
      steps: 24,
      replans: 3,
      attempts: 2,
    };

    // Act & Assess
    expect(checkLimits(record, minutesLater(29))).toBeUndefined();
  });
});

const STEPS: LimitReached = {
  kind: "limit",
  detail: "maxSteps",
  message: "maxSteps reached: 25 of 25 steps used",
};

describe("awaitLimitDecision", () => {
  it("makes the goal wait for a human decision and records the reason", () => {
    // Act
    const { record, events } = awaitLimitDecision({ ...buildGoal(), steps: 25 }, STEPS, "appr-7", LATER);

    // Assess
    expect(record.status).toBe("waiting");
    expect(record.waitingFor).toEqual({ kind: "decision", approvalId: "appr-7", reason: STEPS.message });
    expect(record.resumeCondition).toEqual({
      eventType: "Approval Decided",
      approvalId: "appr-7",
      revision: 1,
    });
    expect(record.stopReason).toMatchObject({ kind: "limit", detail: "maxSteps" });
    expect(events.map((event) => event.type)).toEqual(["limit.reached", "goal.waiting"]);
  });
});

describe("extendLimits", () => {
  const waiting = () =>
    frozen(
      awaitLimitDecision({ ...buildGoal({ limits: { maxCostUsd: 5 } }), steps: 25 }, STEPS, "appr-7", LATER),
    );

  it("raises the reached limit, keeps the others and lets the decision wake the goal", () => {
    // Act
    const extended = frozen(extendLimits(waiting(), { maxSteps: 50 }, "alice", LATER));
    const woken = resumeFromWait(
      extended,
      { eventType: "Approval Decided", approvalId: "appr-7" },
      "load",
      LATER,
    );

    // Assess
    expect(extended.spec.limits).toMatchObject({ maxSteps: 50, maxCostUsd: 5, maxAttempts: 3 });
    expect(woken.record).toMatchObject({ status: "running", stopReason: null });
    expect(checkLimits(woken.record, LATER)).toBeUndefined();
  });

  it("records who extended what", () => {
    // Act
    const { events } = extendLimits(waiting(), { maxSteps: 50 }, "alice", LATER);

    // Assess
    expect(events).toEqual([
      expect.objectContaining({ type: "limits.extended", by: "alice", changes: { maxSteps: 50 } }),
    ]);
  });

  it("refuses an extension that does not clear the reached limit", () => {
    // Act
    const attempt = () => extendLimits(waiting(), { maxCostUsd: 10 }, "alice", LATER);

    // Assess
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(/does not clear the reached limit/);
  });

  it.each<[unknown, string]>([
    [{}, ""],
    [{ maxSteps: 0 }, "maxSteps"],
    [{ colour: 1 }, "colour"],
  ])("refuses the bad patch %j naming the field", (patch, path) => {
    // Act
    const attempt = () => extendLimits(waiting(), patch as LimitsPatch, "alice", LATER);

    // Assess
    expect(attempt).toThrow(ValidationError);
    try {
      attempt();
    } catch (error) {
      expect((error as ValidationError).issues[0]?.path).toBe(path);
    }
  });
});

describe("terminateOnLimitTimeout", () => {
  it("terminates with the limit as the reason when nobody decided in time", () => {
    // Prepare
    const waiting = frozen(awaitLimitDecision({ ...buildGoal(), steps: 25 }, STEPS, "appr-7", LATER));

    // Act
    const { record, events } = terminateOnLimitTimeout(waiting, minutesLater(60));

    // Assess
    expect(record.status).toBe("terminated");
    expect(record.stopReason).toMatchObject({ kind: "limit", detail: "maxSteps" });
    expect(record.stopReason?.message).toContain("no decision before the wait timed out");
    expect(events.map((event) => event.type)).toEqual(["goal.terminated"]);
  });

  it("refuses a goal that waits for something else", () => {
    // Act & Assess
    expect(() => terminateOnLimitTimeout(goalIn("waiting"), LATER)).toThrow(GoalStatusError);
  });
});

describe("recordReplan and recordAttempt", () => {
  it("count replans and attempts until the limits are reached", () => {
    // Prepare
    let record = buildGoal();

    // Act
    for (let index = 0; index < 4; index += 1) record = frozen(recordReplan(record, "step failed", NOW));
    let attempts = buildGoal();
    for (let index = 0; index < 3; index += 1) attempts = frozen(recordAttempt(attempts, NOW));

    // Assess
    expect(record.replans).toBe(4);
    expect(checkLimits(record, NOW)?.detail).toBe("maxReplans");
    expect(attempts.attempts).toBe(3);
    expect(checkLimits(attempts, NOW)?.detail).toBe("maxAttempts");
  });
});
