import { type GoalChange, goalEvent, settle } from "../../goal/goal-change";
import type { GoalRecord } from "../../goal/goal-record";
import {
  type BatchStep,
  type BatchTurnKey,
  type PlanBatch,
  type PlanState,
  type PlanStepState,
  stepById,
  withPlanState,
} from "../../goal/plan";
import { sameRun } from "../../goal/run-lineage";
import { checkpointRunId } from "../../goal/run-takeover";
import type { CheckpointKey } from "../../ports/goal-store";
import { readySteps } from "./plan-state";

/**
 * Batches of ready steps (DESIGN §2: steps whose dependencies are done run at once). When two or more
 * steps are ready, Observe arms a batch and answers `execute_batch`: the ExecuteBatch Map state makes
 * every step's executor turn at once (the model's latency is paid once for the batch), each under its
 * own checkpoint key. The loop then acts on the turns one step per iteration — its tool calls, its
 * gate, its step record and Observe's classification stay each step's own — ungated steps first, so a
 * step that waits for a human waits after the others acted. A replan waits until the whole batch was
 * observed.
 */

/** Whether Observe should arm a batch now: nothing in flight, nothing waiting, two or more steps ready. */
export function startsBatch(record: GoalRecord): boolean {
  const state = record.planState;
  if (!state || state.version === 0 || state.pending || state.decision || state.needsApproval) return false;
  if (batchStepsLeft(record).length > 0) return false;
  return readySteps(state).length >= 2;
}

/**
 * The batch of every step ready now, numbered from `firstCall` (the goal's next execute call number)
 * in plan order, made in the run's `position`; records `plan.batch.started`.
 */
export function armBatch(
  record: GoalRecord,
  position: { readonly runId: string; readonly iteration: number },
  firstCall: number,
  now: Date,
): GoalChange | undefined {
  const state = record.planState;
  if (!state || !startsBatch(record)) return undefined;
  const ready = readySteps(state);
  const steps: BatchStep[] = ready.map((step, index) => ({
    stepId: step.id,
    ordinal: state.steps.indexOf(step) + 1,
    call: firstCall + index,
    counted: false,
  }));
  const batch: PlanBatch = {
    version: state.version,
    runId: checkpointRunId(record, position),
    iteration: position.iteration,
    steps,
  };
  const next = withPlanState(record, { ...state, batch }, now);
  return settle(next, [
    goalEvent(next, "plan.batch.started", now, {
      version: state.version,
      stepIds: steps.map((step) => step.stepId),
    }),
  ]);
}

/**
 * The batch's steps not acted on yet (still pending in the plan the batch was made for), in plan
 * order. A batch is its run's: a new run (continue-as-new, a resume) makes its steps' turns anew.
 * A human revision ends it too: its turns were made before the revision, and the replan it asks
 * for comes first, as at any step boundary.
 */
export function batchStepsLeft(record: GoalRecord): BatchStep[] {
  const state = record.planState;
  const batch = state?.batch;
  if (!state || !batch || batch.version !== state.version) return [];
  if (!sameRun(record, batch, { runId: record.runId })) return [];
  if (state.pending?.trigger === "human_revision") return [];
  return batch.steps.filter((entry) => stepById(state, entry.stepId)?.status === "pending");
}

/** Whether ExecuteBatch has yet to make the batch's turns: none counted, none acted on. */
export function batchUnmade(record: GoalRecord): boolean {
  const batch = record.planState?.batch;
  if (!batch) return false;
  const left = batchStepsLeft(record);
  return left.length === batch.steps.length && left.every((entry) => !entry.counted);
}

/** The batch step to act on next: the first whose turn needs no human, else the first left. */
export function nextBatchStep(record: GoalRecord): { step: PlanStepState; entry: BatchStep } | undefined {
  const state = record.planState;
  const left = batchStepsLeft(record);
  const entry = left.find((candidate) => candidate.gated !== true) ?? left[0];
  const step = entry && state && stepById(state, entry.stepId);
  return entry && step ? { step, entry } : undefined;
}

/** Where a batch step's turn is checkpointed (see BatchTurnKey). */
export function batchTurnKey(batch: PlanBatch, entry: BatchStep): BatchTurnKey {
  return { runId: batch.runId, iteration: batch.iteration, ordinal: entry.ordinal };
}

/** The checkpoint key of a batch turn. */
export function batchCheckpointKey(goalId: string, turn: BatchTurnKey): CheckpointKey {
  return { goalId, runId: turn.runId, iteration: turn.iteration, role: "execute", ordinal: turn.ordinal };
}

/** The plan state with the batch entry of `stepId` updated (its usage counted, its gate known). */
export function withBatchStep(
  state: PlanState,
  stepId: string,
  update: Partial<Pick<BatchStep, "counted" | "gated">>,
): PlanState {
  const batch = state.batch;
  if (!batch) return state;
  const steps = batch.steps.map((entry) => (entry.stepId === stepId ? { ...entry, ...update } : entry));
  return { ...state, batch: { ...batch, steps } };
}

/** The record with the batch entry of `stepId` updated (see `withBatchStep`). */
export function markBatchStep(
  record: GoalRecord,
  stepId: string,
  update: Partial<Pick<BatchStep, "counted" | "gated">>,
  now: Date,
): GoalRecord {
  const state = record.planState;
  return state?.batch ? withPlanState(record, withBatchStep(state, stepId, update), now) : record;
}

/** Drops a batch with nothing left to act on (done, or left behind by a replan). */
export function endBatch(record: GoalRecord, now: Date): GoalChange | undefined {
  const state = record.planState;
  if (!state?.batch || batchStepsLeft(record).length > 0) return undefined;
  const { batch: _done, ...rest } = state;
  return settle(withPlanState(record, rest, now), []);
}
