import { goalEvent, settle } from "../goal-change";
import { terminate } from "../goal-lifecycle";
import type { GoalRecord } from "../goal-record";
import { checkLimits } from "../limits";
import type { GoalStore } from "../ports/goal-store";
import { applyRevision } from "../revisions";
import { markLoop } from "./loop-marker";
import type { Clock } from "./react-deps";
import { isRunningIn, nextForStatus, type RunPosition, type StepResult } from "./step-result";
import { chain, readGoal, updateGoal } from "./update-goal";

export interface LoadGoalPorts {
  readonly goals: GoalStore;
  readonly now: Clock;
}

export type LoadGoalInput = Pick<RunPosition, "goalId" | "runId">;

/**
 * LoadGoal, the first state of a run: applies the revisions queued in the goal's inbox (the
 * `reconcile` call comes with issue 5), ends the goal when a limit is reached, and records
 * `run.started` once per run. A goal that is not running, or runs under another run id, is left alone.
 */
export async function loadGoal(ports: LoadGoalPorts, input: LoadGoalInput): Promise<StepResult> {
  const { goalId, runId } = input;
  const initial = await readGoal(ports.goals, goalId);
  const now = ports.now();
  const { record } = await updateGoal(ports.goals, initial, (current) => {
    if (!isRunningIn(current, runId)) return undefined;
    const queued = current.inbox.map((revision) => revision.revisionId);
    const firstLoad = current.loop?.runId !== runId;
    const change = chain(
      current,
      ...queued.map((revisionId) => (next: GoalRecord) => applyRevision(next, revisionId, { now })),
      (next) => (firstLoad ? startRun(next, runId, queued.length, now) : undefined),
      (next) => {
        const limit = checkLimits(next, now);
        return limit ? terminate(next, limit, now) : undefined;
      },
    );
    return change.events.length > 0 ? change : undefined;
  });
  if (record.runId !== runId) return { goalId, runId, iteration: 0, next: "stop" };
  const next = record.status === "running" ? "verify" : nextForStatus(record.status);
  return { goalId, runId, iteration: record.runIteration, next };
}

function startRun(record: GoalRecord, runId: string, revisionsApplied: number, now: Date) {
  const marked = markLoop(record, { runId, iteration: record.runIteration, phase: "started" }, "verify", now);
  const started = goalEvent(marked.record, "run.started", now, {
    iteration: record.runIteration,
    previousRunId: record.previousRunId ?? null,
    revisionsApplied,
  });
  return settle(marked.record, [started]);
}
