import type { GoalRecord, Takeover } from "./goal-record";
import { furthestPhase } from "./loop-marker";
import type { PlanState } from "./plan";
import { lineagePosition, lineageRunId, sameRun } from "./run-lineage";

/**
 * What changes when `newRunId` takes over the current run's iteration (a re-attach after the run's
 * process died, a retry after it failed): the iteration number stays, what the lineage reached in it
 * counts (`takeover.phase`), and the new run goes on in the current run's lineage (`takeover.runId`,
 * see run-lineage.ts): its model calls are found and made under the lineage's name, so none paid for
 * is paid again, and the gate and the plan step in progress stay its own, so a human's pending or
 * given decision and a started step outlive the run that asked for them, over any number of
 * take-overs. A gate or plan step recorded under the dying run's own id is renamed to its lineage.
 */
export function takeOver(
  record: GoalRecord,
  newRunId: string,
): Pick<GoalRecord, "runId" | "previousRunId" | "runIteration" | "takeover" | "actionGate" | "planState"> {
  const iteration = record.runIteration;
  const earlier = record.takeover;
  const marker =
    record.loop && sameRun(record, record.loop, { runId: record.runId, iteration }) ? record.loop : undefined;
  const phase = furthestPhase(earlier?.iteration === iteration ? earlier.phase : undefined, marker?.phase);
  const takeover: Takeover = {
    runId: lineageRunId(record, record.runId),
    iteration,
    ...(phase === undefined ? {} : { phase }),
  };
  const gate = record.actionGate;
  return {
    runId: newRunId,
    previousRunId: record.runId,
    runIteration: iteration,
    takeover,
    actionGate: gate && lineagePosition(record, gate),
    ...(record.planState ? { planState: planStateInLineage(record, record.planState) } : {}),
  };
}

function planStateInLineage(record: GoalRecord, state: PlanState): PlanState {
  return state.current ? { ...state, current: lineagePosition(record, state.current) } : state;
}

/**
 * The run id a model checkpoint of (`runId`, `iteration`) is found and stored under: its lineage's
 * name (`lineageRunId`), so a run that took over finds the calls its lineage paid for.
 */
export function checkpointRunId(
  record: Pick<GoalRecord, "runId" | "takeover">,
  position: { readonly runId: string; readonly iteration: number },
): string {
  return lineageRunId(record, position.runId);
}
