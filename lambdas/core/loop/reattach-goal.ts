import type { GoalRecord } from "../goal/goal-record";
import { reattachRun } from "../goal/reattach-run";
import type { Clock } from "../ports/clock";
import type { GoalStore } from "../ports/goal-store";
import { nextRunId } from "./run-ids";
import { readGoal, updateGoal } from "./update-goal";

export interface ReattachGoalPorts {
  readonly goals: GoalStore;
  readonly now: Clock;
}

/** A goal re-attached to a new run: start that run's execution next. */
export interface ReattachedGoal {
  readonly goalId: string;
  readonly runId: string;
  readonly previousRunId: string;
  readonly status: GoalRecord["status"];
  readonly pattern: GoalRecord["pattern"];
  /** The approval a waiting goal still waits on; null for a running goal. */
  readonly approvalId: string | null;
}

/**
 * Commits `reattachRun` for a `running` or `waiting` goal whose run died with its process: the next
 * sequential run id, status kept. Anything else, or a goal another process re-attached meanwhile
 * (its run id moved on), is left alone and answers undefined.
 */
export async function reattachGoal(
  ports: ReattachGoalPorts,
  goalId: string,
): Promise<ReattachedGoal | undefined> {
  const loaded = await readGoal(ports.goals, goalId);
  const deadRunId = loaded.record.runId;
  const now = ports.now();
  let changed = false;
  const { record } = await updateGoal(ports.goals, loaded, (current) => {
    changed = false;
    if (current.runId !== deadRunId || (current.status !== "running" && current.status !== "waiting")) {
      return undefined;
    }
    changed = true;
    return reattachRun(current, { newRunId: nextRunId(current.runId), now });
  });
  if (!changed || record.runId === deadRunId) return undefined;
  return {
    goalId,
    runId: record.runId,
    previousRunId: deadRunId,
    status: record.status,
    pattern: record.pattern,
    approvalId: record.status === "waiting" ? (record.waitingFor?.approvalId ?? null) : null,
  };
}
