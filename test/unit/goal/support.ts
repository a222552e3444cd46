import { sha256Hex } from "../../../lambdas/core/goal/canonical-json";
import { createGoalRecord } from "../../../lambdas/core/goal/create-goal";
import type { CycleObservationsInput } from "../../../lambdas/core/goal/evidence/cycle-observations";
import { recordCycle } from "../../../lambdas/core/goal/evidence/record-cycle";
import type { GoalChange } from "../../../lambdas/core/goal/goal-change";
import { cancel, complete, fail, pause, terminate, waitFor } from "../../../lambdas/core/goal/goal-lifecycle";
import type { GoalRecord, GoalStatus } from "../../../lambdas/core/goal/goal-record";
import { type GoalSpecInput, parseGoalSpec } from "../../../lambdas/core/goal/goal-spec";
import { selectPattern } from "../../../lambdas/core/intake/pattern-selector";

/** The clock every test starts from; later instants are derived from it, never from Date.now(). */
export const NOW = new Date("2025-06-01T12:00:00.000Z");

export function minutesLater(minutes: number, from: Date = NOW): Date {
  return new Date(from.getTime() + minutes * 60_000);
}

/** A spec with one artifact check and one tool-result check; override any field. */
export function specInput(overrides: Partial<GoalSpecInput> = {}): GoalSpecInput {
  return {
    objective: "Write a release report",
    successChecks: [
      {
        id: "report",
        description: "The report exists and has a summary",
        verify: { kind: "artifact", path: "out/report.md", contains: "## Summary" },
      },
      {
        id: "tests-pass",
        description: "The test suite passes",
        verify: { kind: "tool_result", tool: "run_tests", expect: { contains: "0 failed" } },
      },
    ],
    ...overrides,
  };
}

/** Freezes every nested object, so a core function that mutates its input throws in tests. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** A new running goal (frozen), created through the core as production does. */
export function buildGoal(overrides: Partial<GoalSpecInput> = {}, goalId = "goal-1"): GoalRecord {
  const spec = parseGoalSpec(specInput(overrides));
  const choice = selectPattern(spec);
  const { record } = createGoalRecord({
    spec,
    goalId,
    tenantId: "tenant-1",
    runId: "run-1",
    now: NOW,
    pattern: choice.pattern,
    patternReason: choice.reason,
  });
  return deepFreeze(record);
}

/** Freezes the record of a change so the next operation in a test cannot mutate it either. */
export function frozen(change: GoalChange): GoalRecord {
  return deepFreeze(change.record);
}

/** A recorded artifact observation with its real hash. */
export function artifact(path: string, content: string) {
  return { path, sha256: sha256Hex(content), content };
}

/** A recorded tool result observation with its real hash. */
export function toolResult(tool: string, resultText: string, status: "success" | "error" = "success") {
  return { tool, status, resultText, sha256: sha256Hex(`${tool}:${status}:${resultText}`) };
}

/** Observations that satisfy both checks of the default spec. */
export const SATISFYING: CycleObservationsInput = {
  artifacts: [artifact("out/report.md", "# Release\n\n## Summary\nAll good.")],
  toolResults: [toolResult("run_tests", "42 passed, 0 failed")],
};

export function waitingApproval(approvalId = "appr-1") {
  return {
    waitingFor: { kind: "approval" as const, approvalId, reason: "irreversible tool notify" },
    resumeCondition: { eventType: "Approval Decided", approvalId, revision: 1 },
  };
}

/** A goal in `status`, reached through the core's own operations. */
export function goalIn(status: GoalStatus, base: GoalRecord = buildGoal()): GoalRecord {
  const later = minutesLater(1);
  switch (status) {
    case "running":
      return base;
    case "waiting": {
      const wait = waitingApproval();
      return frozen(waitFor(base, wait.waitingFor, wait.resumeCondition, later));
    }
    case "paused":
      return frozen(pause(base, { kind: "policy", detail: "test", message: "paused by a test" }, later));
    case "failed":
      return frozen(
        fail(base, { kind: "infrastructure", detail: "States.Timeout", message: "lambda timed out" }, later),
      );
    case "completed": {
      const satisfied = frozen(recordCycle(base, SATISFYING, { now: later, iteration: 0 }));
      return frozen(complete(satisfied, later));
    }
    case "cancelled":
      return frozen(cancel(base, "alice", "not needed", later));
    case "terminated":
      return frozen(
        terminate(base, { kind: "policy", detail: "test", message: "terminated by a test" }, later),
      );
  }
}
