import type { GoalRecord } from "./goal-record";

/**
 * A run's lineage: the runs of a goal that count their iterations as one. A goal's first run starts
 * one at iteration 0, and so do continue-as-new and a human resume (each starts the count again). A
 * run that takes over an iteration its predecessor could not finish (a re-attach after the process
 * died, a retry of a failed goal in a new run) goes on in its predecessor's lineage, and a redrive
 * is the same run again. Chains of any length and order, re-attach after retry after re-attach, stay
 * one lineage until a continue-as-new or a resume starts the next.
 *
 * A lineage is named by its first run (`takeover.runId`, handed on from take-over to take-over), and
 * every position the goal keeps is recorded under that name: model checkpoints, action and plan
 * gates, the plan step in progress, the step log. So "the same iteration" is plain equality of
 * (lineage, iteration), whatever runs came between, and nothing has to remember the runs in the
 * middle: the record stays one small item. What stays per run, not per lineage: which execution may
 * change the goal (`isRunningIn`) and the loop marker of a run's own progress (what a lineage reached
 * before a run took over is `takeover.phase`).
 */

/** A position some run of the goal recorded, or the run as a whole when `iteration` is absent. */
export interface RunRef {
  readonly runId: string;
  readonly iteration?: number;
}

type LineageOf = Pick<GoalRecord, "runId" | "takeover">;

/**
 * The lineage `runId` names, as far as the record tells: the current run's is the run it took over
 * from, else its own; any other id is a lineage's name already (positions are recorded under it).
 */
export function lineageRunId(record: LineageOf, runId: string): string {
  return runId === record.runId ? (record.takeover?.runId ?? runId) : runId;
}

/**
 * The one answer to "do these belong together?": whether `a` and `b` are in the same lineage and,
 * when both name an iteration, the same iteration of it. Ask it with the current run
 * (`{runId: record.runId}`, with or without its iteration) to learn whether a gate, a plan step, a
 * logged step or a marker belongs to the current run; ask it with two recorded positions to learn
 * whether they are one (a logged step and the plan step it was made for). A position recorded under
 * the current run's own id (before lineages were recorded) counts as its lineage's.
 */
export function sameRun(record: LineageOf, a: RunRef, b: RunRef): boolean {
  if (a.iteration !== undefined && b.iteration !== undefined && a.iteration !== b.iteration) return false;
  return lineageRunId(record, a.runId) === lineageRunId(record, b.runId);
}

/** `position` as the goal records it: under its lineage's name (see `lineageRunId`). */
export function lineagePosition<P extends RunRef>(record: LineageOf, position: P): P {
  const runId = lineageRunId(record, position.runId);
  return runId === position.runId ? position : { ...position, runId };
}
