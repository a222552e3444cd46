import { type GoalChange, settle } from "../goal/goal-change";
import type { GoalRecord, LoopMarker } from "../goal/goal-record";

/** `planned` and `reflected` never meet in one pattern: they share a rank between verify and the acting turn. */
const PHASE_ORDER: Readonly<Record<LoopMarker["phase"], number>> = {
  started: 0,
  verified: 1,
  planned: 2,
  reflected: 2,
  reasoned: 3,
  acted: 4,
};

/** Whether the goal's loop already reached `phase` of `iteration` in `runId` (or went past it). */
export function reached(
  record: GoalRecord,
  runId: string,
  iteration: number,
  phase: LoopMarker["phase"],
): boolean {
  const loop = record.loop;
  if (!loop || loop.runId !== runId) return false;
  if (loop.iteration !== iteration) return loop.iteration > iteration;
  return PHASE_ORDER[loop.phase] >= PHASE_ORDER[phase];
}

/**
 * Marks `phase` done and, while the goal runs, names the step it is in now (`activeTask`); a goal
 * that stopped meanwhile keeps its own. No event: a marker only.
 */
export function markLoop(record: GoalRecord, loop: LoopMarker, activeTask: string, now: Date): GoalChange {
  const task = record.status === "running" ? activeTask : record.activeTask;
  return settle({ ...record, loop, activeTask: task, updatedAt: now.toISOString() }, []);
}
