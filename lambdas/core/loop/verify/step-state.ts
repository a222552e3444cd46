import type { GoalChange } from "../../goal/goal-change";
import type { GoalRecord } from "../../goal/goal-record";
import type { StepStateRecorder } from "../../ports/goal-history";
import { isUncounted, type PendingVerification } from "./verify-step";

export interface StepStatePorts {
  /** Where step states go; absent (a test that does not fork), nothing is recorded. */
  readonly history?: StepStateRecorder;
}

/**
 * Records where the goal stands right after the verify cycle counts `pending`'s step: `count` is
 * the pattern's own counting change (the verify cycle, and Plan-and-Execute's classification before
 * it), applied here to the goal as the step read it, before anything that follows the count (the
 * next model call, a gate, a pause) touches it. A fork from this step starts from exactly this
 * record, the calls checkpointed so far and the workspace's files now (the store adds both).
 *
 * Made before the step's commit, so a crash after it still leaves the state; a retried step finds
 * the step counted or writes the same state again, and the first one stays. Nothing is recorded
 * when the step was counted already.
 */
export async function recordStepState(
  ports: StepStatePorts,
  input: {
    readonly record: GoalRecord;
    readonly pending: PendingVerification | undefined;
    readonly count: (record: GoalRecord) => GoalChange | undefined;
    readonly now: Date;
  },
): Promise<void> {
  const { record, pending } = input;
  if (ports.history === undefined || !isUncounted(record, pending)) return;
  const counted = input.count(record)?.record;
  if (counted?.steps !== pending.step.step) return;
  const planStepId = record.planState?.current?.stepId;
  await ports.history.recordStepState({
    goalId: record.goalId,
    step: pending.step.step,
    record: counted,
    ...(planStepId === undefined ? {} : { planStepId }),
    at: input.now.toISOString(),
  });
}
