import type { GoalChange } from "../../goal/goal-change";
import type { GoalRecord } from "../../goal/goal-record";
import {
  callsPerRole,
  STEP_STATE_FORMAT,
  type StepStateBasis,
  type StepStateRecorder,
} from "../../ports/goal-history";
import type { CheckpointKey } from "../../ports/goal-store";
import { isUncounted, type PendingVerification } from "./verify-step";

export interface StepStatePorts {
  /** Where step states go; absent (a test that does not fork), nothing is recorded. */
  readonly history?: StepStateRecorder;
}

/** What `prepareStepState` needs: the goal as the step read it, the verify cycle and its count. */
export interface StepStateInput {
  readonly record: GoalRecord;
  readonly pending: PendingVerification | undefined;
  readonly count: (record: GoalRecord) => GoalChange | undefined;
  readonly now: Date;
  /**
   * The calls and workspace files, read once the verify cycle's judge calls were made
   * (`readStepStateBasis`); read by `write` when absent.
   */
  readonly basis?: Promise<StepStateBasis>;
}

/** A step state the verify step has worked out and stores before its commit (see prepareStepState). */
export interface PendingStepState {
  /**
   * Stores the state once (a second call waits for the first write). `excluding`: calls checkpointed
   * after the point the state stands for that the basis may hold (this iteration's reason call, the
   * summarize calls of its compaction, made by this attempt or a crashed one before it).
   */
  write(excluding?: readonly CheckpointKey[]): Promise<void>;
}

const NOTHING_TO_WRITE: PendingStepState = { write: () => Promise.resolve() };

/**
 * Starts reading what the state of a step holds besides the record, beside the step's other reads.
 * Only once no judge call of the verify cycle is still to come: those calls belong in the count.
 * A read the step never uses (it answered first) is dropped, its failure included.
 */
export function readStepStateBasis(
  ports: StepStatePorts,
  goalId: string,
): Promise<StepStateBasis> | undefined {
  const basis = ports.history?.readStepStateBasis(goalId);
  basis?.catch(() => undefined);
  return basis;
}

/**
 * Where the goal stands right after the verify cycle counts `pending`'s step: `count` is the
 * pattern's own counting change (the verify cycle, and Plan-and-Execute's classification before
 * it), applied here to the goal as the step read it, before anything that follows the count (the
 * next model call, a gate, a pause) touches it. A fork from this step starts from exactly this
 * record, the calls checkpointed by then and the workspace's files then (the store adds both).
 *
 * Written before the step's commit, so a crash after it still leaves the state; a retried step
 * finds the step counted or writes the same state again, and the first one stays. Nothing is
 * recorded when the step was counted already.
 */
export function prepareStepState(ports: StepStatePorts, input: StepStateInput): PendingStepState {
  const { record, pending } = input;
  const history = ports.history;
  if (history === undefined || !isUncounted(record, pending)) return NOTHING_TO_WRITE;
  const counted = input.count(record)?.record;
  if (counted?.steps !== pending.step.step) return NOTHING_TO_WRITE;
  const planStepId = record.planState?.current?.stepId;
  let written: Promise<void> | undefined;
  return {
    write(excluding = []) {
      written ??= (async () => {
        const { checkpoints, workspace } = await (input.basis ?? history.readStepStateBasis(record.goalId));
        await history.putStepState({
          format: STEP_STATE_FORMAT,
          goalId: record.goalId,
          step: pending.step.step,
          record: counted,
          calls: callsPerRole(checkpoints, excluding),
          workspace: [...workspace],
          ...(planStepId === undefined ? {} : { planStepId }),
          at: input.now.toISOString(),
        });
      })();
      return written;
    },
  };
}

/** Records the step state at once, its calls and files read now (see prepareStepState). */
export async function recordStepState(ports: StepStatePorts, input: StepStateInput): Promise<void> {
  await prepareStepState(ports, input).write();
}
