import { GoalStatusError, IllegalTransitionError } from "./errors";
import { FINAL_STATUSES, type GoalRecord, type GoalStatus } from "./goal-record";

/**
 * The status machine of DESIGN §4: every status change the core may make. Final statuses never leave;
 * `failed` is an infrastructure failure and can be redriven.
 */
export const ALLOWED_TRANSITIONS: Readonly<Record<GoalStatus, readonly GoalStatus[]>> = {
  running: ["waiting", "paused", "completed", "cancelled", "terminated", "failed"],
  waiting: ["running", "cancelled", "terminated", "failed"],
  paused: ["running", "cancelled", "terminated"],
  failed: ["running", "cancelled", "terminated"],
  completed: [],
  cancelled: [],
  terminated: [],
};

/** Whether the status machine allows going from `from` to `to`. */
export function canTransition(from: GoalStatus, to: GoalStatus): boolean {
  return ALLOWED_TRANSITIONS[from].includes(to);
}

/** Whether no operation can change the goal any more. */
export function isFinal(status: GoalStatus): boolean {
  return FINAL_STATUSES.has(status);
}

/**
 * Throws IllegalTransitionError unless `operation` may take the goal from its status to `to`: the
 * table must allow it, and the operation must be one that leaves the current status (only `resume`
 * leaves `paused`, for example).
 */
export function assertTransition(
  record: GoalRecord,
  to: GoalStatus,
  operation: string,
  operationFrom: readonly GoalStatus[],
): void {
  const from = record.status;
  const details = { goalId: record.goalId, from, to, operation };
  if (!canTransition(from, to) && from !== to) {
    const targets = ALLOWED_TRANSITIONS[from];
    const why =
      targets.length === 0 ? `'${from}' is final` : `from '${from}' it can only go to ${targets.join(", ")}`;
    throw new IllegalTransitionError({ ...details, why });
  }
  if (!operationFrom.includes(from)) {
    throw new IllegalTransitionError({
      ...details,
      why: `${operation} only applies to ${operationFrom.join(", ")} goals`,
    });
  }
}

/** Throws GoalStatusError unless the goal's status is one of `allowed` (operations that keep the status). */
export function assertStatus(record: GoalRecord, allowed: readonly GoalStatus[], operation: string): void {
  if (!allowed.includes(record.status)) {
    throw new GoalStatusError({ goalId: record.goalId, status: record.status, operation, allowed });
  }
}

/** Every status that is not final: the ones a human can still revise, cancel or terminate. */
export const OPEN_STATUSES: readonly GoalStatus[] = ["running", "waiting", "paused", "failed"];
