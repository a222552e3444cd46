import { describe, expect, it } from "vitest";
import {
  assertSameSubmission,
  FIRST_RUN_ID,
  IdempotencyKeyReusedError,
  intakeGoal,
  SELECT_FALLBACK_NOTE,
} from "../../../lambdas/core/goal-intake";
import type { GoalSpecInput } from "../../../lambdas/core/goal-spec";

const NOW = new Date("2026-03-01T12:00:00.000Z");

const spec = (overrides: Partial<GoalSpecInput> = {}): GoalSpecInput => ({
  objective: "Count the files",
  successChecks: [
    { id: "counted", description: "count.txt exists", verify: { kind: "artifact", path: "count.txt" } },
  ],
  ...overrides,
});

const intake = (body: unknown) => intakeGoal({ body, goalId: "g-1", tenantId: "t-1", now: NOW });

describe("intakeGoal", () => {
  it("creates a running goal on run r1 with the requested pattern and a goal.created event", () => {
    // Act
    const { record, events } = intake(spec({ pattern: "react" }));

    // Assess
    expect(record).toMatchObject({
      goalId: "g-1",
      tenantId: "t-1",
      status: "running",
      runId: FIRST_RUN_ID,
      pattern: "react",
      patternReason: "requested",
      revision: 1,
      createdAt: NOW.toISOString(),
    });
    expect(events.map((event) => event.type)).toEqual(["goal.created"]);
  });

  it("applies the selector's rules for auto", () => {
    // Act
    const { record } = intake(spec({ hints: { procedure: ["build", "test"] } }));

    // Assess
    expect(record).toMatchObject({ pattern: "plan_execute", patternReason: "known procedure" });
  });

  it("records that the fallback stood when the select role should have decided", () => {
    // Act
    const { record, events } = intake(spec());

    // Assess
    expect(record.pattern).toBe("react");
    expect(record.patternReason).toContain(SELECT_FALLBACK_NOTE);
    expect(events[0]?.patternReason).toBe(record.patternReason);
  });

  it("throws a ValidationError naming the bad fields", () => {
    // Act + Assess
    expect(() => intake({ ...spec(), limits: { maxSteps: -1 }, extra: 1 })).toThrow(
      expect.objectContaining({
        name: "ValidationError",
        issues: expect.arrayContaining([
          expect.objectContaining({ path: "limits.maxSteps" }),
          { path: "extra", message: "unknown field" },
        ]),
      }),
    );
  });
});

describe("assertSameSubmission", () => {
  it("accepts the same spec, however its keys are ordered", () => {
    // Prepare
    const existing = intake(spec({ constraints: ["no network"] })).record;
    const { constraints, ...rest } = spec({ constraints: ["no network"] });
    const retried = intake({ constraints, ...rest }).record;

    // Act + Assess
    expect(() => assertSameSubmission(existing, retried)).not.toThrow();
  });

  it("refuses a different spec while the goal is at revision 1", () => {
    // Prepare
    const existing = intake(spec()).record;
    const retried = intake(spec({ objective: "Count the folders" })).record;

    // Act + Assess
    expect(() => assertSameSubmission(existing, retried)).toThrow(IdempotencyKeyReusedError);
  });

  it("accepts a late retry of a goal a human has revised since", () => {
    // Prepare
    const created = intake(spec()).record;
    const revised = { ...created, revision: 2, spec: { ...created.spec, objective: "Count the folders" } };

    // Act + Assess
    expect(() => assertSameSubmission(revised, intake(spec()).record)).not.toThrow();
  });
});
