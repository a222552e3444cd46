import { describe, expect, it } from "vitest";
import { createGoalRecord } from "../../../lambdas/core/goal/create-goal";
import {
  InvariantViolationError,
  UnsatisfiedChecksError,
  ValidationError,
} from "../../../lambdas/core/goal/errors";
import { recordCycle } from "../../../lambdas/core/goal/evidence/record-cycle";
import {
  cancel,
  complete,
  continueAsNew,
  resume,
  resumeFromWait,
  startStep,
  waitFor,
} from "../../../lambdas/core/goal/goal-lifecycle";
import { parseGoalSpec } from "../../../lambdas/core/goal/goal-spec";
import {
  artifact,
  buildGoal,
  frozen,
  goalIn,
  minutesLater,
  NOW,
  specInput,
  waitingApproval,
} from "./support";

const LATER = minutesLater(5);

describe("createGoalRecord", () => {
  it("creates a running goal at revision 1 and records the pattern and why", () => {
    // Prepare
    const spec = parseGoalSpec(specInput());

    // Act
    const { record, events } = createGoalRecord({
      spec,
      goalId: "g-7",
      tenantId: "t-1",
      runId: "run-a",
      now: NOW,
      pattern: "plan_execute",
      patternReason: "known procedure",
    });

    // Assess
    expect(record).toMatchObject({
      goalId: "g-7",
      status: "running",
      revision: 1,
      runId: "run-a",
      activeTask: "load",
      steps: 0,
      noProgressCycles: 0,
      pattern: "plan_execute",
      createdAt: NOW.toISOString(),
    });
    expect(Object.values(record.usageByRole).every((usage) => usage.modelCalls === 0)).toBe(true);
    expect(events).toEqual([
      expect.objectContaining({
        type: "goal.created",
        runId: "run-a",
        pattern: "plan_execute",
        patternReason: "known procedure",
        requestedPattern: "auto",
        successChecks: ["report", "tests-pass"],
      }),
    ]);
  });
});

describe("startStep", () => {
  it("sets the active task of a running goal", () => {
    // Prepare
    const record = buildGoal();

    // Act
    const change = startStep(record, "reason", LATER);

    // Assess
    expect(change.record.activeTask).toBe("reason");
    expect(change.record.updatedAt).toBe(LATER.toISOString());
    expect(change.events).toEqual([expect.objectContaining({ type: "step.started", task: "reason" })]);
  });

  it("refuses an empty task name", () => {
    // Act & Assess
    expect(() => startStep(buildGoal(), " ", LATER)).toThrow(ValidationError);
  });
});

describe("waitFor and resumeFromWait", () => {
  it("stores what the goal waits for and clears the active task", () => {
    // Prepare
    const { waitingFor, resumeCondition } = waitingApproval("appr-5");

    // Act
    const { record } = waitFor(buildGoal(), waitingFor, resumeCondition, LATER);

    // Assess
    expect(record.status).toBe("waiting");
    expect(record.activeTask).toBeNull();
    expect(record.waitingFor).toEqual(waitingFor);
    expect(record.resumeCondition).toEqual(resumeCondition);
  });

  it("refuses a resume condition for another approval than the one waited for", () => {
    // Prepare
    const { waitingFor } = waitingApproval("appr-5");
    const { resumeCondition } = waitingApproval("appr-6");

    // Act & Assess
    expect(() => waitFor(buildGoal(), waitingFor, resumeCondition, LATER)).toThrow(/same approval/);
  });

  it("wakes only on the event matching both waitingFor and resumeCondition", () => {
    // Prepare
    const waiting = goalIn("waiting");

    // Act
    const woken = resumeFromWait(
      waiting,
      { eventType: "Approval Decided", approvalId: "appr-1" },
      "act",
      LATER,
    );

    // Assess
    expect(woken.woke).toBe(true);
    expect(woken.record).toMatchObject({
      status: "running",
      activeTask: "act",
      waitingFor: null,
      resumeCondition: null,
    });
    expect(woken.events).toEqual([expect.objectContaining({ type: "goal.woken", approvalId: "appr-1" })]);
  });

  it.each([
    ["a decision for another approval", { eventType: "Approval Decided", approvalId: "appr-2" }],
    ["a revision event", { eventType: "Revision Queued", approvalId: "appr-1" }],
  ])("ignores %s: nothing changes", (_label, event) => {
    // Prepare
    const waiting = goalIn("waiting");

    // Act
    const result = resumeFromWait(waiting, event, "act", LATER);

    // Assess
    expect(result.woke).toBe(false);
    expect(result.record).toBe(waiting);
    expect(result.events).toEqual([]);
  });

  it("answers a duplicate (late) decision idempotently once the goal runs again", () => {
    // Prepare
    const event = { eventType: "Approval Decided", approvalId: "appr-1" };
    const woken = frozen(resumeFromWait(goalIn("waiting"), event, "act", LATER));

    // Act
    const again = resumeFromWait(woken, event, "act", minutesLater(6));

    // Assess
    expect(again).toEqual({ record: woken, events: [], woke: false });
  });
});

describe("resume and continueAsNew", () => {
  it("resumes a paused goal in a new run that references the previous one", () => {
    // Prepare
    const paused = { ...goalIn("paused"), noProgressCycles: 2, runIteration: 7 };

    // Act
    const { record, events } = resume(paused, { newRunId: "run-2", now: LATER, by: "alice" });

    // Assess
    expect(record).toMatchObject({
      status: "running",
      runId: "run-2",
      previousRunId: "run-1",
      noProgressCycles: 0,
      runIteration: 0,
      activeTask: "load",
      stopReason: null,
    });
    expect(events).toEqual([
      expect.objectContaining({ type: "goal.resumed", previousRunId: "run-1", by: "alice" }),
    ]);
  });

  it("refuses a resume that reuses the current runId (invariant 5)", () => {
    // Prepare
    const paused = goalIn("paused");

    // Act
    const attempt = () => resume(paused, { newRunId: "run-1", now: LATER });

    // Assess
    expect(attempt).toThrow(InvariantViolationError);
    expect(attempt).toThrow(/invariant 5/);
  });

  it("continues a running goal as a new run with its iteration count reset", () => {
    // Prepare
    const running = { ...buildGoal(), runIteration: 40, steps: 40 };

    // Act
    const { record, events } = continueAsNew(running, { newRunId: "run-2", now: LATER });

    // Assess
    expect(record).toMatchObject({
      status: "running",
      runId: "run-2",
      previousRunId: "run-1",
      runIteration: 0,
      steps: 40,
    });
    expect(events[0]).toMatchObject({ type: "run.continued", runId: "run-2", previousRunIterations: 40 });
  });
});

describe("cancel", () => {
  it("records who cancelled and why", () => {
    // Act
    const { record } = cancel(goalIn("waiting"), "alice", "wrong goal", LATER);

    // Assess
    expect(record.status).toBe("cancelled");
    expect(record.waitingFor).toBeNull();
    expect(record.stopReason).toMatchObject({ kind: "cancelled", detail: "alice", message: "wrong goal" });
  });
});

describe("complete", () => {
  it("throws UnsatisfiedChecksError listing every check without evidence", () => {
    // Prepare
    const record = buildGoal();

    // Act
    const attempt = () => complete(record, LATER);

    // Assess
    expect(attempt).toThrow(UnsatisfiedChecksError);
    try {
      attempt();
    } catch (error) {
      expect((error as UnsatisfiedChecksError).checkIds).toEqual(["report", "tests-pass"]);
      expect((error as Error).message).toContain("report, tests-pass");
    }
  });

  it("throws while a single check is still unsatisfied", () => {
    // Prepare
    const half = frozen(
      recordCycle(
        buildGoal(),
        { artifacts: [artifact("out/report.md", "## Summary")] },
        { now: LATER, iteration: 0 },
      ),
    );

    // Act & Assess
    expect(() => complete(half, LATER)).toThrow(/tests-pass/);
  });

  it("completes when every check has evidence", () => {
    // Act
    const record = goalIn("completed");

    // Assess
    expect(record.status).toBe("completed");
    expect(record.activeTask).toBeNull();
    expect(record.stopReason?.kind).toBe("completed");
  });
});
