import type { GoalRecord } from "../../goal/goal-record";
import { pauseAsRequested } from "../../goal/human-pause";
import { checkLimits } from "../../goal/limits";
import { awaitsAct, markLoop, reached } from "../../goal/loop-marker";
import { gatedNext } from "../../loop/gates/action-gate";
import { askForCheckApproval } from "../../loop/gates/check-approval";
import { needsHumanDecision } from "../../loop/gates/human-decision";
import { askOnFatalToolError } from "../../loop/gates/step-decision";
import { applyQueuedRevisions } from "../../loop/revisions/apply-revisions";
import type { CompensationWorkspace, ToolCompensators } from "../../loop/revisions/compensate";
import {
  isRunningIn,
  type NextStep,
  type RunPosition,
  type StepResult,
  stopped,
} from "../../loop/step-result";
import { chain, readGoal, updateGoal } from "../../loop/update-goal";
import { recordStepState, type StepStatePorts } from "../../loop/verify/step-state";
import { decideChange, isUncounted, prepareVerification, verifyPending } from "../../loop/verify/verify-step";
import type { CapacityGovernor } from "../../models/capacity/capacity-governor";
import type { Clock } from "../../ports/clock";
import type { GoalStore, VersionedGoal } from "../../ports/goal-store";
import type { ModelClient } from "../../ports/model-client";
import type { StepLog, StepRecord } from "../../ports/step-log";
import { needsLesson } from "./record-lesson";
import type { ReflexionSettings } from "./reflexion-deps";

export interface EvaluatePorts extends StepStatePorts {
  readonly goals: GoalStore;
  /** Reads the attempt's artifacts; writes only to compensate a corrective revision. */
  readonly workspace: CompensationWorkspace;
  readonly stepLog: Pick<StepLog, "listRecentSteps">;
  readonly model: ModelClient;
  /** Paces its model calls within the models' quotas (see CheckpointedCallPorts). */
  readonly capacity?: CapacityGovernor;
  readonly now: Clock;
  /** Undoes a user tool's call for a corrective revision (its `compensate` function). */
  readonly compensators?: ToolCompensators;
}

/**
 * Evaluate, the Reflexion loop's verify step: applies queued revisions, then evaluates the latest
 * logged step no cycle has counted yet (the last attempt, acted on by Attempt or Act) against the
 * success checks: recorded evidence for artifact, tool-result and approval checks, one `evaluate`
 * call per unsatisfied model_judge check; then `recordCycle` counts progress and pauses a stalled
 * goal. Then it decides (see `nextAfterEvaluate`): completed, `limit_decision`, `continue_as_new`,
 * `reflect` or `attempt`.
 *
 * A retry repeats nothing: an evaluated step has `step <= record.steps`, the evaluate calls are
 * checkpointed and their usage is counted in the same commit as the cycle, and the decision is a
 * pure function of the stored goal.
 */
export async function evaluate(
  ports: EvaluatePorts,
  settings: ReflexionSettings,
  input: RunPosition,
): Promise<StepResult> {
  const { runId } = input;
  const read = await readGoal(ports.goals, input.goalId);
  const loaded = await applyQueuedRevisions(ports, { loaded: read, runId, models: settings.models });
  if (!isRunningIn(loaded.record, runId)) return stopped(loaded.record, input);
  // An attempt not acted on yet (a run that took it over): Act first, its step is not ready to count.
  const current = { ...input, iteration: loaded.record.runIteration };
  if (awaitsAct(loaded.record, runId, current.iteration))
    return { ...current, next: gatedNext(loaded.record, current) };
  const [latest] = await ports.stepLog.listRecentSteps(input.goalId, 1);
  const now = ports.now();
  const { record } = await evaluateAndMark(ports, settings, loaded, latest, runId, now);
  if (!isRunningIn(record, runId)) return stopped(record, input);
  const position = { ...input, iteration: record.runIteration };
  return { ...position, next: nextAfterEvaluate(record, position, settings, now) };
}

async function evaluateAndMark(
  ports: EvaluatePorts,
  settings: ReflexionSettings,
  loaded: VersionedGoal,
  latest: StepRecord | undefined,
  runId: string,
  now: Date,
): Promise<VersionedGoal> {
  const pending = await prepareVerification(ports, {
    record: loaded.record,
    latest,
    models: settings.models,
    role: "evaluate",
  });
  await recordStepState(ports, {
    record: loaded.record,
    pending,
    count: (record) => verifyPending(record, pending, now),
    now,
  });
  return updateGoal(ports.goals, loaded, (current) => {
    if (!isRunningIn(current, runId)) return undefined;
    const counts = isUncounted(current, pending);
    const change = chain(
      current,
      (next) => verifyPending(next, pending, now),
      (next) => decideChange(next, now),
      (next) => (counts ? askOnFatalToolError(next, pending.step, now) : undefined),
      (next) => askForCheckApproval(next, now),
      // A human's pause takes effect here, before the next reflect or attempt call.
      (next) => pauseAsRequested(next, now),
      (next) => markEvaluated(next, settings, runId, now),
    );
    return change.record === current ? undefined : change;
  });
}

/** The `verified` marker of the iteration, once, naming the step the goal goes to as its active task. */
function markEvaluated(record: GoalRecord, settings: ReflexionSettings, runId: string, now: Date) {
  const iteration = record.runIteration;
  if (!isRunningIn(record, runId) || reached(record, runId, iteration, "verified")) return undefined;
  const next = nextAfterEvaluate(record, { goalId: record.goalId, runId, iteration }, settings, now);
  return markLoop(record, { runId, iteration, phase: "verified" }, next, now);
}

/**
 * What a running goal does after Evaluate. An iteration already past Reflect or Attempt goes on
 * where it is (a retried Evaluate, or the way back from a gate or a limit decision); otherwise a
 * reached limit (`maxAttempts` among them) waits for a human decision, a long run continues as new,
 * a failed attempt without a lesson is reflected on, and else the next attempt starts.
 */
export function nextAfterEvaluate(
  record: GoalRecord,
  position: RunPosition,
  settings: Pick<ReflexionSettings, "continueAsNewAfter">,
  now: Date,
): NextStep {
  const { runId, iteration } = position;
  if (reached(record, runId, iteration, "reasoned")) return gatedNext(record, position);
  if (reached(record, runId, iteration, "reflected")) return "attempt";
  // A call failed in a way no retry fixes: a human decides before the next model call.
  if (needsHumanDecision(record)) return "decision";
  if (checkLimits(record, now)) return "limit_decision";
  if (iteration >= settings.continueAsNewAfter) return "continue_as_new";
  return needsLesson(record) ? "reflect" : "attempt";
}
