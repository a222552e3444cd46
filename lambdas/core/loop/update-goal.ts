import type { GoalChange } from "../goal/goal-change";
import type { GoalRecord } from "../goal/goal-record";
import {
  type CommitOptions,
  GoalNotFoundError,
  type GoalStore,
  type VersionedGoal,
} from "../ports/goal-store";

/** How often a step re-reads and re-applies its change after another writer got in first. */
export const MAX_CONFLICT_RETRIES = 2;

/** Reads a goal, or throws GoalNotFoundError: every step is started for a goal that exists. */
export async function readGoal(goals: GoalStore, goalId: string): Promise<VersionedGoal> {
  const versioned = await goals.getGoal(goalId);
  if (!versioned) throw new GoalNotFoundError(`Goal '${goalId}' does not exist`);
  return versioned;
}

function isConflict(error: unknown): boolean {
  // By name, not instanceof: the store may come from another copy of the module (bundles, workers).
  return error instanceof Error && error.name === "ConcurrentModificationError";
}

/**
 * Applies `change` to the goal and commits it under the optimistic lock. `change` must be a pure
 * function of the record that returns undefined when there is nothing (left) to do: on a conflict
 * the goal is read again and the change re-applied to what the other writer left, at most
 * MAX_CONFLICT_RETRIES times; then the ConcurrentModificationError goes to the state machine's Retry.
 */
export async function updateGoal(
  goals: GoalStore,
  initial: VersionedGoal,
  change: (record: GoalRecord) => GoalChange | undefined,
  options?: CommitOptions,
): Promise<VersionedGoal> {
  let current = initial;
  for (let conflicts = 0; ; conflicts += 1) {
    const next = change(current.record);
    if (!next) return current;
    try {
      return await goals.commit(next.record, current.version, next.events, options);
    } catch (error) {
      if (!isConflict(error) || conflicts >= MAX_CONFLICT_RETRIES) throw error;
    }
    current = await readGoal(goals, initial.record.goalId);
  }
}

/** Runs `steps` one after another on a change, collecting their events in order. */
export function chain(
  start: GoalRecord,
  ...steps: readonly ((record: GoalRecord) => GoalChange | undefined)[]
): GoalChange {
  let record = start;
  const events: GoalChange["events"] = [];
  for (const step of steps) {
    const change = step(record);
    if (!change) continue;
    record = change.record;
    events.push(...change.events);
  }
  return { record, events };
}
