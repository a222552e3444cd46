import type { GoalRecord, Takeover } from "./goal-record";
import { furthestPhase, reached } from "./loop-marker";

/**
 * What changes when `newRunId` takes over the current run's iteration (a re-attach after the run's
 * process died, a retry after it failed): the iteration number stays, what the old run reached in
 * it counts (`takeover.phase`), the new run's model calls from this iteration on are found and made
 * under the old run's id (`checkpointRunId`), so none the old run paid for is paid again, and its
 * gate moves into the new run unless Act acted on it already, so a human's pending or given decision
 * outlives the run that asked for it. A run that itself took over passes its old run's id on.
 */
export function takeOver(
  record: GoalRecord,
  newRunId: string,
): Pick<GoalRecord, "runId" | "previousRunId" | "runIteration" | "takeover" | "actionGate"> {
  const iteration = record.runIteration;
  const earlier = record.takeover;
  const marker =
    record.loop?.runId === record.runId && record.loop.iteration === iteration ? record.loop : undefined;
  const phase = furthestPhase(earlier?.iteration === iteration ? earlier.phase : undefined, marker?.phase);
  const takeover: Takeover = {
    runId: earlier && iteration >= earlier.iteration ? earlier.runId : record.runId,
    iteration,
    ...(phase === undefined ? {} : { phase }),
  };
  const gate = record.actionGate;
  const carried =
    gate && gate.runId === record.runId && !reached(record, gate.runId, gate.iteration, "acted");
  return {
    runId: newRunId,
    previousRunId: record.runId,
    runIteration: iteration,
    takeover,
    actionGate: carried ? { ...gate, runId: newRunId } : gate,
  };
}

/**
 * The run id a model checkpoint of (`runId`, `iteration`) is found and stored under: from the
 * iteration the current run took over on, the old run's (the new run goes on in the old run's
 * numbering); else `runId` itself.
 */
export function checkpointRunId(
  record: Pick<GoalRecord, "runId" | "takeover">,
  position: { readonly runId: string; readonly iteration: number },
): string {
  const { takeover } = record;
  const continues =
    takeover !== undefined && position.runId === record.runId && position.iteration >= takeover.iteration;
  return continues ? takeover.runId : position.runId;
}
