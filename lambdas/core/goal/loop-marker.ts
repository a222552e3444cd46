import { type GoalChange, settle } from "./goal-change";
import type { GoalRecord, LoopMarker } from "./goal-record";
import { sameRun } from "./run-lineage";

/** `planned` and `reflected` never meet in one pattern: they share a rank between verify and the acting turn. */
const PHASE_ORDER: Readonly<Record<LoopMarker["phase"], number>> = {
  started: 0,
  verified: 1,
  planned: 2,
  reflected: 2,
  reasoned: 3,
  acted: 4,
};

/**
 * Whether the goal's loop already reached `phase` of `iteration` in `runId` (or went past it). The
 * marker is a run's own; in the iteration a run took over (`takeover`), what its lineage reached
 * before it counts too, however many runs took that iteration over in turn.
 */
export function reached(
  record: GoalRecord,
  runId: string,
  iteration: number,
  phase: LoopMarker["phase"],
): boolean {
  const { loop, takeover } = record;
  const tookOver =
    takeover?.phase !== undefined &&
    sameRun(record, { runId, iteration }, { runId: record.runId, iteration: takeover.iteration }) &&
    PHASE_ORDER[takeover.phase] >= PHASE_ORDER[phase];
  if (tookOver) return true;
  if (!loop || !sameRun(record, loop, { runId })) return false;
  if (loop.iteration !== iteration) return loop.iteration > iteration;
  return PHASE_ORDER[loop.phase] >= PHASE_ORDER[phase];
}

/**
 * The iteration's acting turn (reason, execute or attempt) is counted and not acted on yet: it waits
 * for Act (or for a human's decision on its gate). Nothing may verify the iteration's step before
 * Act commits it, even when an earlier run of the lineage logged it already.
 */
export function awaitsAct(record: GoalRecord, runId: string, iteration: number): boolean {
  return reached(record, runId, iteration, "reasoned") && !reached(record, runId, iteration, "acted");
}

/**
 * Marks `phase` done and, while the goal runs, names the step it is in now (`activeTask`); a goal
 * that stopped meanwhile keeps its own. No event: a marker only.
 */
export function markLoop(record: GoalRecord, loop: LoopMarker, activeTask: string, now: Date): GoalChange {
  const task = record.status === "running" ? activeTask : record.activeTask;
  return settle({ ...record, loop, activeTask: task, updatedAt: now.toISOString() }, []);
}

/** The later of two phases (either may be absent). */
export function furthestPhase(
  a: LoopMarker["phase"] | undefined,
  b: LoopMarker["phase"] | undefined,
): LoopMarker["phase"] | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return PHASE_ORDER[a] >= PHASE_ORDER[b] ? a : b;
}
