import { describe, expect, it } from "vitest";
import { IllegalTransitionError } from "../../../lambdas/core/goal/errors";
import { recordCycle } from "../../../lambdas/core/goal/evidence/record-cycle";
import type { GoalChange } from "../../../lambdas/core/goal/goal-change";
import {
  cancel,
  complete,
  fail,
  pause,
  resume,
  resumeFromWait,
  retry,
  startStep,
  terminate,
  waitFor,
} from "../../../lambdas/core/goal/goal-lifecycle";
import { GOAL_STATUSES, type GoalRecord, type GoalStatus } from "../../../lambdas/core/goal/goal-record";
import { ALLOWED_TRANSITIONS, canTransition } from "../../../lambdas/core/goal/goal-status";
import { awaitLimitDecision, terminateOnLimitTimeout } from "../../../lambdas/core/goal/limits";
import { buildGoal, frozen, goalIn, minutesLater, SATISFYING, waitingApproval } from "./support";

const LATER = minutesLater(5);
const POLICY = { kind: "policy" as const, detail: "test", message: "stop" };
const INFRA = { kind: "infrastructure" as const, detail: "States.Timeout", message: "timed out" };

type Transition = readonly [
  from: GoalStatus,
  to: GoalStatus,
  operation: string,
  act: (record: GoalRecord) => GoalChange,
];

/** Every allowed transition, each through every core operation that makes it. */
const ALLOWED: readonly Transition[] = [
  [
    "running",
    "waiting",
    "waitFor",
    (r) => waitFor(r, waitingApproval().waitingFor, waitingApproval().resumeCondition, LATER),
  ],
  [
    "running",
    "waiting",
    "awaitLimitDecision",
    (r) =>
      awaitLimitDecision(
        r,
        { kind: "limit", detail: "maxSteps", message: "maxSteps reached" },
        "appr-9",
        LATER,
      ),
  ],
  ["running", "paused", "pause", (r) => pause(r, POLICY, LATER)],
  [
    "running",
    "paused",
    "recordCycle (no progress)",
    (r) => recordCycle({ ...r, noProgressCycles: 2 }, {}, { now: LATER, iteration: 3 }),
  ],
  [
    "running",
    "completed",
    "complete",
    (r) => complete(frozen(recordCycle(r, SATISFYING, { now: LATER, iteration: 0 })), LATER),
  ],
  ["running", "cancelled", "cancel", (r) => cancel(r, "alice", "no longer needed", LATER)],
  ["running", "terminated", "terminate", (r) => terminate(r, POLICY, LATER)],
  ["running", "failed", "fail", (r) => fail(r, INFRA, LATER)],
  [
    "waiting",
    "running",
    "resumeFromWait",
    (r) => resumeFromWait(r, { eventType: "Approval Decided", approvalId: "appr-1" }, "act", LATER),
  ],
  ["waiting", "cancelled", "cancel", (r) => cancel(r, "alice", "stop", LATER)],
  ["waiting", "terminated", "terminate", (r) => terminate(r, POLICY, LATER)],
  ["waiting", "failed", "fail", (r) => fail(r, INFRA, LATER)],
  ["paused", "running", "resume", (r) => resume(r, { newRunId: "run-2", now: LATER })],
  ["paused", "cancelled", "cancel", (r) => cancel(r, "alice", "stop", LATER)],
  ["paused", "terminated", "terminate", (r) => terminate(r, POLICY, LATER)],
  ["failed", "running", "retry (new run)", (r) => retry(r, { newRunId: "run-2", now: LATER, by: "alice" })],
  ["failed", "running", "retry (redrive)", (r) => retry(r, { now: LATER, by: "alice" })],
  ["failed", "cancelled", "cancel", (r) => cancel(r, "alice", "stop", LATER)],
  ["failed", "terminated", "terminate", (r) => terminate(r, POLICY, LATER)],
];

describe("ALLOWED_TRANSITIONS", () => {
  it("lists exactly the transitions of DESIGN §4 and nothing leaves a final status", () => {
    // Prepare
    const expected = new Set(ALLOWED.map(([from, to]) => `${from}->${to}`));

    // Act
    const table = new Set(
      GOAL_STATUSES.flatMap((from) =>
        GOAL_STATUSES.filter((to) => canTransition(from, to)).map((to) => `${from}->${to}`),
      ),
    );

    // Assess
    expect(table).toEqual(expected);
    expect(ALLOWED_TRANSITIONS.completed).toEqual([]);
    expect(ALLOWED_TRANSITIONS.cancelled).toEqual([]);
    expect(ALLOWED_TRANSITIONS.terminated).toEqual([]);
  });

  it.each(ALLOWED)("%s -> %s by %s", (from, to, _operation, act) => {
    // Prepare
    const record = goalIn(from);

    // Act
    const change = act(record);

    // Assess
    expect(change.record.status).toBe(to);
    expect(change.events.length).toBeGreaterThan(0);
    expect(change.events.every((event) => event.at === LATER.toISOString())).toBe(true);
  });

  it("terminates a goal whose limit decision timed out (waiting -> terminated)", () => {
    // Prepare
    const limit = { kind: "limit" as const, detail: "maxCostUsd" as const, message: "maxCostUsd reached" };
    const waiting = frozen(awaitLimitDecision(buildGoal(), limit, "appr-2", LATER));

    // Act
    const { record } = terminateOnLimitTimeout(waiting, minutesLater(60));

    // Assess
    expect(record.status).toBe("terminated");
    expect(record.stopReason?.detail).toBe("maxCostUsd");
  });
});

describe("illegal transitions", () => {
  const ILLEGAL: readonly Transition[] = [
    ["completed", "running", "resume", (r) => resume(r, { newRunId: "run-2", now: LATER })],
    ["cancelled", "cancelled", "cancel", (r) => cancel(r, "alice", "again", LATER)],
    ["terminated", "failed", "fail", (r) => fail(r, INFRA, LATER)],
    ["completed", "terminated", "terminate", (r) => terminate(r, POLICY, LATER)],
    ["paused", "running", "startStep", (r) => startStep(r, "reason", LATER)],
    ["paused", "failed", "fail", (r) => fail(r, INFRA, LATER)],
    ["waiting", "paused", "pause", (r) => pause(r, POLICY, LATER)],
    ["waiting", "completed", "complete", (r) => complete(r, LATER)],
    ["running", "running", "resume", (r) => resume(r, { newRunId: "run-2", now: LATER })],
    ["failed", "completed", "complete", (r) => complete(r, LATER)],
    ["failed", "running", "resume", (r) => resume(r, { newRunId: "run-2", now: LATER })],
    ["paused", "running", "retry", (r) => retry(r, { newRunId: "run-2", now: LATER, by: "alice" })],
  ];

  it.each(ILLEGAL)("%s -> %s by %s throws IllegalTransitionError", (from, to, operation, act) => {
    // Prepare
    const record = goalIn(from);

    // Act
    const attempt = () => act(record);

    // Assess
    expect(attempt).toThrow(IllegalTransitionError);
    try {
      attempt();
    } catch (error) {
      const illegal = error as IllegalTransitionError;
      expect(illegal.name).toBe("IllegalTransitionError");
      expect(illegal.message).toContain(`'${from}'`);
      expect(illegal.message).toContain(`'${to}'`);
      expect(illegal.message).toContain("goal-1");
      expect(illegal.message).toContain(operation);
    }
  });
});
