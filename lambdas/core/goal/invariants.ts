import { InvariantViolationError } from "./errors";
import { unsatisfiedCheckIds } from "./evidence/check-evidence";
import type { GoalRecord, GoalSnapshot } from "./goal-record";

/** A record, or a snapshot as the API returns it (e2e tests check snapshots). */
export type InvariantSubject = GoalRecord | GoalSnapshot;

interface Violation {
  readonly invariant: number;
  readonly message: string;
}

function isSnapshot(subject: InvariantSubject): subject is GoalSnapshot {
  return "unsatisfiedChecks" in subject;
}

function findViolations(subject: InvariantSubject): Violation[] {
  const violations: Violation[] = [];
  const add = (invariant: number, message: string) => violations.push({ invariant, message });

  if (subject.status === "running" && !subject.activeTask) {
    add(1, "a running goal must have an activeTask");
  }
  // The snapshot says what a running goal does: its step, or the model capacity it waits for.
  if (isSnapshot(subject) && subject.status === "running" && subject.activity === undefined) {
    add(1, "a running goal must have an activity");
  }
  if (subject.status !== "running" && subject.activity?.kind === "waiting_for_capacity") {
    add(1, `a ${subject.status} goal cannot wait for model capacity (only a running one does)`);
  }
  if (subject.status === "waiting" && (!subject.resumeCondition || !subject.waitingFor)) {
    add(2, "a waiting goal must have a resumeCondition and a waitingFor");
  }
  if (subject.status === "completed") {
    const unsatisfied = isSnapshot(subject) ? subject.unsatisfiedChecks : unsatisfiedCheckIds(subject);
    if (unsatisfied.length > 0) {
      add(3, `a completed goal has unsatisfied checks: ${unsatisfied.join(", ")}`);
    }
  }
  // Snapshots carry neither the last cycle nor the previous run; those two are checked on records.
  if (!isSnapshot(subject)) {
    if (subject.lastCycle?.progress && subject.noProgressCycles !== 0) {
      add(4, `the last cycle made progress but noProgressCycles is ${subject.noProgressCycles}`);
    }
    if (subject.previousRunId !== undefined && subject.previousRunId === subject.runId) {
      add(5, `a resumed run must have a new runId, but runId and previousRunId are both '${subject.runId}'`);
    }
  }
  return violations;
}

/**
 * The invariants of DESIGN §4 that `subject` breaks, as readable strings ("invariant 1: …"); empty
 * when it keeps all of them.
 */
export function checkInvariants(subject: InvariantSubject): string[] {
  return findViolations(subject).map((violation) => `invariant ${violation.invariant}: ${violation.message}`);
}

/** Throws InvariantViolationError (first broken invariant's number, every message) unless all hold. */
export function assertInvariants(record: GoalRecord): void {
  const violations = findViolations(record);
  const first = violations[0];
  if (first) {
    throw new InvariantViolationError(
      record.goalId,
      first.invariant,
      violations.map((violation) => violation.message),
    );
  }
}
