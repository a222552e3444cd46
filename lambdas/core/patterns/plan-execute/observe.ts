import { unsatisfiedCheckIds } from "../../goal/evidence/check-evidence";
import { type GoalChange, settle } from "../../goal/goal-change";
import type { GoalRecord } from "../../goal/goal-record";
import { pauseAsRequested } from "../../goal/human-pause";
import { checkLimits } from "../../goal/limits";
import { awaitsAct } from "../../goal/loop-marker";
import { checkpointRunId } from "../../goal/run-takeover";
import { gatedNext } from "../../loop/gates/action-gate";
import { askForCheckApproval } from "../../loop/gates/check-approval";
import { needsHumanDecision } from "../../loop/gates/human-decision";
import { applyQueuedRevisions } from "../../loop/revisions/apply-revisions";
import type { CompensationWorkspace, ToolCompensators } from "../../loop/revisions/compensate";
import { isRunningIn, type RunPosition, type StepResult, stopped } from "../../loop/step-result";
import { chain, readGoal, updateGoal } from "../../loop/update-goal";
import { recordStepState, type StepStatePorts } from "../../loop/verify/step-state";
import { decideChange, isUncounted, prepareVerification, verifyPending } from "../../loop/verify/verify-step";
import type { CapacityGovernor } from "../../models/capacity/capacity-governor";
import type { Clock } from "../../ports/clock";
import type { GoalStore, VersionedGoal } from "../../ports/goal-store";
import type { ModelClient } from "../../ports/model-client";
import type { StepLog, StepRecord } from "../../ports/step-log";
import { armBatch, batchStepsLeft, batchUnmade, endBatch, startsBatch } from "./batch";
import {
  askPlanApproval,
  classifyChange,
  consumeDecision,
  consumePlanGate,
  noticeRevisions,
  resetStaleStep,
} from "./observe-changes";
import type { PlanExecuteSettings } from "./plan-execute-deps";
import { initialPlanState, readyStep } from "./plan-state";
import { requestReplan } from "./replan";

export interface ObservePorts extends StepStatePorts {
  readonly goals: GoalStore;
  /** Reads artifacts for verify; writes only to compensate a corrective revision. */
  readonly workspace: CompensationWorkspace;
  readonly stepLog: Pick<StepLog, "listRecentSteps">;
  /** `judge` calls for model_judge checks and `reconcile` calls for revisions; no other role. */
  readonly model: ModelClient;
  /** Paces its model calls within the models' quotas (see CheckpointedCallPorts). */
  readonly capacity?: CapacityGovernor;
  readonly now: Clock;
  /** Undoes a user tool's call for a corrective revision (its `compensate` function). */
  readonly compensators?: ToolCompensators;
}

/**
 * Observe's answer; `cooldownSeconds` feeds the ReplanCooldown Wait state (`SecondsPath`), `batch`
 * the ExecuteBatch Map state (`ItemsPath`): the ids of the steps whose turns it makes at once.
 */
export interface ObserveResult extends StepResult {
  readonly cooldownSeconds?: number;
  readonly batch?: readonly string[];
}

/**
 * Observe: applies queued revisions (each with its `reconcile` call), verifies the latest logged step
 * that no cycle counted yet (evidence, progress, the no-progress pause), classifies the executed plan
 * step's result and turns what it found into replan requests or a human decision; then decides:
 * completed → limit → continue-as-new → plan / replan (after a cooldown) → decision → approval →
 * execute the next ready step; a plan used up while checks are unsatisfied is replanned globally.
 *
 * A retry repeats nothing: a verified step has `step <= record.steps`, judge and reconcile calls are
 * checkpointed, and every request Observe records is state the retry finds.
 */
export async function observe(
  ports: ObservePorts,
  settings: PlanExecuteSettings,
  input: RunPosition,
): Promise<ObserveResult> {
  const { runId } = input;
  const read = await readGoal(ports.goals, input.goalId);
  const loaded = await applyQueuedRevisions(ports, { loaded: read, runId, models: settings.models });
  if (!isRunningIn(loaded.record, runId)) return stopped(loaded.record, input);
  // An executor turn not acted on yet (a run that took it over): Act first, its step is not ready to count.
  const position = { ...input, iteration: loaded.record.runIteration };
  if (awaitsAct(loaded.record, runId, position.iteration))
    return { ...position, next: gatedNext(loaded.record, position) };
  const [latest] = await ports.stepLog.listRecentSteps(input.goalId, 1);
  const observed = await observeStep(ports, settings, loaded, latest, runId);
  if (!isRunningIn(observed.record, runId)) return stopped(observed.record, input);
  const prepared = await startBatch(ports, settings, observed, runId);
  return decide(
    prepared.record,
    { ...input, iteration: prepared.record.runIteration },
    settings,
    ports.now(),
  );
}

/**
 * Verify and classify the latest step (when uncounted), then what humans decided since, then what the
 * decision needs armed (`prepareNext`): one commit.
 */
async function observeStep(
  ports: ObservePorts,
  settings: PlanExecuteSettings,
  loaded: VersionedGoal,
  latest: StepRecord | undefined,
  runId: string,
): Promise<VersionedGoal> {
  const pending = await prepareVerification(ports, {
    record: loaded.record,
    latest,
    models: settings.models,
  });
  const now = ports.now();
  // Classified before verify: verify may pause the goal, and a replan request needs it running.
  const count = (next: GoalRecord) =>
    isUncounted(next, pending)
      ? chain(
          next,
          (classified) => classifyChange(classified, pending.step, settings, now),
          (classified) => verifyPending(classified, pending, now, stepsDone(next, classified)),
        )
      : undefined;
  await recordStepState(ports, { record: loaded.record, pending, count, now });
  return updateGoal(ports.goals, loaded, (current) => {
    if (!isRunningIn(current, runId)) return undefined;
    const running = (next: GoalRecord) => isRunningIn(next, runId);
    const change = chain(
      current,
      count,
      (next) => (running(next) ? consumePlanGate(next, settings, now) : undefined),
      (next) => (running(next) ? consumeDecision(next, settings, now) : undefined),
      (next) => (running(next) ? noticeRevisions(next, settings, now) : undefined),
      (next) => (running(next) ? resetStaleStep(next, now) : undefined),
      (next) => endBatch(next, now),
      (next) => decideChange(next, now),
      (next) => askForCheckApproval(next, now),
      // A human's pause takes effect here, before the next plan or execute call.
      (next) => pauseAsRequested(next, now),
      (next) => (running(next) ? prepareNext(next, settings, now) : undefined),
    );
    return change.record === current ? undefined : change;
  });
}

/**
 * Arms a batch when two or more steps are ready and the decision is to execute (see batch.ts): its
 * turns are numbered from the goal's next execute call, looked up once here, so parallel branches
 * never number two calls alike. A retry finds the batch armed.
 */
async function startBatch(
  ports: ObservePorts,
  settings: PlanExecuteSettings,
  loaded: VersionedGoal,
  runId: string,
): Promise<VersionedGoal> {
  const { record } = loaded;
  const now = ports.now();
  if (!startsBatch(record) || checkLimits(record, now) || needsHumanDecision(record)) return loaded;
  if (record.runIteration >= settings.continueAsNewAfter) return loaded;
  const position = { runId, iteration: record.runIteration };
  const first = await ports.goals.findCheckpoint({
    goalId: record.goalId,
    runId: checkpointRunId(record, position),
    iteration: position.iteration,
    role: "execute",
    ordinal: 1,
  });
  // A turn under the batch's first key already (never expected): the steps run one at a time.
  if (first.checkpoint) return loaded;
  return updateGoal(ports.goals, loaded, (current) =>
    isRunningIn(current, runId) && current.runIteration === position.iteration
      ? armBatch(current, position, first.calls, now)
      : undefined,
  );
}

/**
 * What the decision needs in the record before it is taken: a plan request armed for Plan (the
 * first plan; a pending replan), the plan gate asked again (after a resume), or — when no step is
 * left to run and checks are still unsatisfied — a global replan.
 */
function prepareNext(record: GoalRecord, settings: PlanExecuteSettings, now: Date): GoalChange | undefined {
  if (checkLimits(record, now)) return undefined;
  if (record.runIteration >= settings.continueAsNewAfter && batchStepsLeft(record).length === 0)
    return undefined;
  const state = record.planState;
  if (!state) return settle({ ...record, planState: initialPlanState(record.revision) }, []);
  if (state.version === 0 || state.pending) return armPlanRequest(record);
  if (needsHumanDecision(record)) return undefined;
  if (state.needsApproval) return askPlanApproval(record, now);
  if (readyStep(state)) return undefined;
  const open = state.steps.filter((step) => step.status !== "done" && step.status !== "skipped");
  return chain(
    record,
    (next) =>
      requestReplan(
        next,
        {
          trigger: "plan_exhausted",
          strategy: "global",
          stepIds: open.map((step) => step.id),
          reason:
            open.length > 0
              ? `no step can run (${open.map((step) => `${step.id} ${step.status}`).join(", ")}) and checks ${unsatisfiedCheckIds(record).join(", ")} are unsatisfied`
              : `every step is done and checks ${unsatisfiedCheckIds(record).join(", ")} are still unsatisfied`,
        },
        settings,
        now,
      ),
    armPlanRequest,
  );
}

/** Numbers the next plan request, once: Plan serves each number once. */
function armPlanRequest(record: GoalRecord): GoalChange | undefined {
  const state = record.planState;
  if (!state || state.requests > state.served) return undefined;
  return settle({ ...record, planState: { ...state, requests: state.served + 1 } }, []);
}

/** The next state, from the record alone (a retry decides the same). */
function decide(
  record: GoalRecord,
  position: RunPosition,
  settings: PlanExecuteSettings,
  now: Date,
): ObserveResult {
  const batchLeft = batchStepsLeft(record);
  if (checkLimits(record, now)) return { ...position, next: "limit_decision" };
  // A batch in flight finishes in this run first: a new run would make its turns again.
  if (record.runIteration >= settings.continueAsNewAfter && batchLeft.length === 0)
    return { ...position, next: "continue_as_new" };
  // A failed step, a new contract to confirm or a check to sign off: a human first, then (re)planning.
  if (needsHumanDecision(record)) return { ...position, next: "decision" };
  const state = record.planState;
  // The batch's steps act before any replan, so the replan sees every result of the batch.
  if (state && !state.needsApproval && batchLeft.length > 0) {
    return batchUnmade(record)
      ? { ...position, next: "execute_batch", batch: batchLeft.map((entry) => entry.stepId) }
      : { ...position, next: "execute" };
  }
  if (!state || state.version === 0 || state.pending) {
    const cooldownSeconds = state?.pending?.cooldownSeconds ?? 0;
    return cooldownSeconds > 0
      ? { ...position, next: "replan_cooldown", cooldownSeconds }
      : { ...position, next: "plan" };
  }
  if (state.needsApproval) return { ...position, next: "approval" };
  return { ...position, next: readyStep(state) ? "execute" : "plan" };
}

/** "plan step <id> succeeded" for each plan step the classification just marked done (progress). */
function stepsDone(before: GoalRecord, after: GoalRecord): string[] {
  const wasDone = new Set(
    (before.planState?.steps ?? []).filter((step) => step.status === "done").map((step) => step.id),
  );
  return (after.planState?.steps ?? [])
    .filter((step) => step.status === "done" && !wasDone.has(step.id))
    .map((step) => `plan step ${step.id} succeeded`);
}
