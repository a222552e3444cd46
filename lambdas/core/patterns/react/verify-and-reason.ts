import type { GoalChange } from "../../goal/goal-change";
import type { GoalRecord } from "../../goal/goal-record";
import { pauseAsRequested } from "../../goal/human-pause";
import { checkLimits, remainingBudgetUsd } from "../../goal/limits";
import { awaitsAct, reached } from "../../goal/loop-marker";
import { sameRun } from "../../goal/run-lineage";
import { checkpointRunId } from "../../goal/run-takeover";
import { type ActPorts, actedAnswer, actUnlessGated, commitTurnAndAct } from "../../loop/act";
import { gatedCalls, gatedNext } from "../../loop/gates/action-gate";
import { askForCheckApproval } from "../../loop/gates/check-approval";
import { needsHumanDecision } from "../../loop/gates/human-decision";
import { askOnFatalToolError } from "../../loop/gates/step-decision";
import { grantedTools, type LoopSettings } from "../../loop/loop-deps";
import { applyQueuedRevisions } from "../../loop/revisions/apply-revisions";
import type { CompensationWorkspace, ToolCompensators } from "../../loop/revisions/compensate";
import { isRunningIn, type RunPosition, type StepResult, stopped } from "../../loop/step-result";
import { chain, readGoal, updateGoal } from "../../loop/update-goal";
import {
  type PendingStepState,
  prepareStepState,
  readStepStateBasis,
  type StepStatePorts,
} from "../../loop/verify/step-state";
import {
  decideChange,
  isUncounted,
  judgesPending,
  type PendingVerification,
  prepareVerification,
  verifyPending,
} from "../../loop/verify/verify-step";
import {
  type CapacityGovernor,
  capacityContextOf,
  type EarlyTenantLimits,
} from "../../models/capacity/capacity-governor";
import {
  countCompactionUsage,
  readStepHistory,
  readStepHistoryEarly,
  type StepHistory,
} from "../../models/context/compaction";
import type { ContextSettings } from "../../models/context/context-settings";
import { packGoalContext } from "../../models/context/pack-goal";
import { checkpointedCall, type EarlyLookup, lookUpEarly } from "../../models/model-call";
import { costOf } from "../../models/model-prices";
import { modelFor } from "../../models/model-thinking";
import type { CheckpointKey, GoalStore, ModelCheckpoint, VersionedGoal } from "../../ports/goal-store";
import type { ModelClient } from "../../ports/model-client";
import type { ToolRunner } from "../../ports/tool-runner";
import { REASON_INSTRUCTIONS, reasonRequest, stateText } from "./reason-prompt";

/** ReAct's settings plus the context packer's (models/context/context-settings.json when absent). */
export type ReasonSettings = LoopSettings & { readonly context?: ContextSettings };

export interface VerifyAndReasonPorts extends ActPorts, StepStatePorts {
  /** Reads artifacts for verify; writes only to compensate a corrective revision. */
  readonly workspace: CompensationWorkspace;
  readonly model: ModelClient;
  /** Paces its model calls within the models' quotas (see CheckpointedCallPorts). */
  readonly capacity?: CapacityGovernor;
  /**
   * Offers tools to the model; `riskOf` tells which reasoned calls need a human approval first;
   * `run` acts on a turn that needs none.
   */
  readonly tools: ToolRunner;
  /** Undoes a user tool's call for a corrective revision (its `compensate` function). */
  readonly compensators?: ToolCompensators;
}

/**
 * VerifyAndReason: (a) verifies the latest logged step that no cycle has counted yet (judge calls for
 * unsatisfied model_judge checks, then `recordCycle`); (b) completes the goal, or ends it on a limit,
 * or asks for a new run after `continueAsNewAfter` iterations; (c) otherwise makes the `reason` call
 * for the run's current iteration on the verified record and counts its usage; (d) when none of the
 * turn's calls needs a human approval, acts on it at once (`commitTurnAndAct`, Act's own code): an
 * ungated iteration is one Lambda invocation and two state transitions, not two and three. A gated
 * turn answers `approval`, and the Act state runs it once a human decided.
 *
 * Two goal writes per ungated iteration: the verify cycle is applied in memory, the reason call is
 * made on that record, and the cycle and the call's usage are committed together (the `reasoned`
 * marker); then the step's events and the `acted` marker. A crash before the first commit redoes the
 * verify work on the retry, which costs nothing (every model call is checkpointed, fingerprints keep
 * the step that first saw them). A retry after it counts nothing again: the marker says `reasoned`,
 * so the retry acts on the checkpointed turn first (reusing a step the dead attempt logged), and
 * after the second commit it only answers. They stay two: the first is the lock that lets a pause,
 * cancel or revision that came in during the model call take effect before any tool runs, and the
 * second must follow the step it commits. What needs no order goes beside them instead: the step
 * state with the reason call's checkpoint, the version a workspace write replaces with the first
 * commit (see commitTurnAndAct).
 */
export async function verifyAndReason(
  ports: VerifyAndReasonPorts,
  settings: ReasonSettings,
  input: RunPosition,
): Promise<StepResult> {
  const { runId } = input;
  // The reason call's lookup beside the goal read, for the position's iteration: the one the call is
  // made in unless verify counts a step the position did not expect (a stale position, a resumed
  // run's first iteration taking over the previous run's last step); then it is looked up again.
  // An invocation that answers without reasoning (stopped, retried, completed, at a limit) pays
  // this one query for nothing: rare next to the round trip it saves on every iteration.
  const reasonLookup = lookUpEarly(ports.goals, reasonKey(input));
  // The history's queries beside it too, for the steps the goal as last known here needs (a warm
  // environment that ran the previous iteration knows it); checked against the goal once read.
  const earlyHistory = readStepHistoryEarly(ports, input.goalId, previousIteration(ports.goals, input), 1);
  const read = await readGoal(ports.goals, input.goalId);
  const loaded = await applyQueuedRevisions(ports, {
    loaded: read,
    runId,
    models: settings.models,
  });
  if (!isRunningIn(loaded.record, runId)) return stopped(loaded.record, input);
  // A retry of an invocation that acted: answer as it did, do nothing again (a stale position goes
  // straight to the iteration after the one that acted).
  const { loop } = loaded.record;
  if (
    loop &&
    sameRun(loaded.record, loop, { runId }) &&
    loop.phase === "acted" &&
    loop.iteration >= input.iteration
  ) {
    return actedAnswer({ ...input, iteration: loop.iteration });
  }
  // A retry after the reason commit: act on that turn before anything else. Verify must not run
  // first: a step the crashed attempt logged but did not commit as acted is not ready to count.
  const current = positionOf(loaded.record, input);
  if (awaitsAct(loaded.record, runId, current.iteration))
    return actUnlessGated(ports, settings, { loaded, position: current });
  // The tenant's limits for the reason call's capacity, read beside the history and verify's reads.
  const tenantLimits = ports.capacity?.readTenantLimitsEarly(capacityContextOf(loaded.record));
  // One read for both halves: the step to verify (logged by Act, not counted yet, so one beyond the
  // record's count) is the newest of the steps the prompt shows after the latest compaction.
  const history = await readStepHistory(ports, loaded.record, 1, earlyHistory);
  const latest = history.steps.at(-1);
  // What the step state holds besides the record, read beside verify's own reads when verify makes
  // no judge call (its calls belong in the state's count), else right after them.
  const uncounted = latest !== undefined && latest.step > loaded.record.steps;
  const earlyBasis =
    uncounted && !judgesPending(loaded.record) ? readStepStateBasis(ports, input.goalId) : undefined;
  const pending = await prepareVerification(ports, {
    record: loaded.record,
    latest,
    models: settings.models,
  });
  const now = ports.now();
  const verify = verification(pending, runId, now);
  const basis =
    earlyBasis ?? (isUncounted(loaded.record, pending) ? readStepStateBasis(ports, input.goalId) : undefined);
  // Stored with the reason call's checkpoint (one round trip for both), or before the verify commit
  // when no call is made; always before the step's first commit, so a crash after it leaves the state.
  const stepState = prepareStepState(ports, {
    record: loaded.record,
    pending,
    count: (record) => verifyPending(record, pending, now),
    now,
    ...(basis ? { basis } : {}),
  });

  const verified = verify(loaded.record)?.record ?? loaded.record;
  if (!answerAfterVerify(verified, input, settings, ports.now())) {
    return reason(
      ports,
      settings,
      { base: loaded, record: verified, verify, history, reasonLookup, stepState, tenantLimits },
      positionOf(verified, input),
    );
  }
  // No reason call: commit the verify cycle alone and answer from what was committed (a racing
  // writer, e.g. a human extending a limit, may have changed the answer).
  await stepState.write(history.uncounted.map((checkpoint) => checkpoint.key));
  const committed = await updateGoal(ports.goals, loaded, verify);
  const answer = answerAfterVerify(committed.record, input, settings, ports.now());
  if (answer) return answer;
  return reason(
    ports,
    settings,
    {
      base: committed,
      record: committed.record,
      verify: () => undefined,
      history,
      reasonLookup,
      stepState,
      tenantLimits,
    },
    positionOf(committed.record, input),
  );
}

/**
 * The goal as this store last knew it, when that record is of this run and at or past its previous
 * iteration's `acted` commit (usually that very commit, made by this environment): most likely the
 * goal as it is now. An older known version is more likely stale, and is not worth a guess.
 */
function previousIteration(goals: GoalStore, { goalId, runId, iteration }: RunPosition) {
  const known = goals.lastKnown(goalId);
  return known && iteration > 0 && known.runId === runId && reached(known, runId, iteration - 1, "acted")
    ? known
    : undefined;
}

function positionOf(record: GoalRecord, input: RunPosition): RunPosition {
  return { ...input, iteration: record.runIteration };
}

/** What the step answers after verify when it makes no reason call; undefined when it must reason. */
function answerAfterVerify(
  record: GoalRecord,
  input: RunPosition,
  settings: ReasonSettings,
  now: Date,
): StepResult | undefined {
  const { runId } = input;
  if (!isRunningIn(record, runId)) return stopped(record, input);
  const position = positionOf(record, input);
  const iteration = position.iteration;
  if (reached(record, runId, iteration, "reasoned"))
    return { ...position, next: gatedNext(record, position) };
  // A call failed in a way no retry fixes, a new contract awaits confirmation, or a success check
  // awaits a human's sign-off: a human decides before the model makes another call.
  if (needsHumanDecision(record)) return { ...position, next: "decision" };
  // A reached limit waits for a human decision (extend or terminate) instead of ending the goal.
  if (checkLimits(record, now)) return { ...position, next: "limit_decision" };
  if (iteration >= settings.continueAsNewAfter) return { ...position, next: "continue_as_new" };
  return undefined;
}

/** The verify cycle of the latest step as a pure change, re-appliable on a conflict. */
function verification(
  pending: PendingVerification | undefined,
  runId: string,
  now: Date,
): (current: GoalRecord) => GoalChange | undefined {
  return (current) => {
    if (!isRunningIn(current, runId)) return undefined;
    const counts = isUncounted(current, pending);
    const change = chain(
      current,
      (next) => verifyPending(next, pending, now),
      (next) => decideChange(next, now),
      (next) => (counts ? askOnFatalToolError(next, pending.step, now) : undefined),
      (next) => askForCheckApproval(next, now),
      // A human's pause takes effect here, before the reason call: only a goal still running pauses.
      (next) => pauseAsRequested(next, now),
    );
    return change.events.length > 0 ? change : undefined;
  };
}

/** The goal as read (`base`), the record the reason call is made on, and the verify change between. */
interface ReasonBase {
  readonly base: VersionedGoal;
  readonly record: GoalRecord;
  readonly verify: (current: GoalRecord) => GoalChange | undefined;
  /** The steps and compaction read before verify; no step is logged between, so the prompt reuses them. */
  readonly history: StepHistory;
  /** The reason call's lookup started beside the goal read, for the position the step was given. */
  readonly reasonLookup: EarlyLookup;
  /** The verified step's state, stored with the reason call's checkpoint (see prepareStepState). */
  readonly stepState: PendingStepState;
  /** The tenant's limits, read beside verify's reads for the reason call's capacity. */
  readonly tenantLimits: EarlyTenantLimits | undefined;
}

function reasonKey({ goalId, runId, iteration }: RunPosition): CheckpointKey {
  return { goalId, runId, iteration, role: "reason", ordinal: 0 };
}

async function reason(
  ports: VerifyAndReasonPorts,
  settings: ReasonSettings,
  { base, record, verify, history, reasonLookup, stepState, tenantLimits }: ReasonBase,
  position: RunPosition,
): Promise<StepResult> {
  const { iteration } = position;
  const key = reasonKey({ ...position, runId: checkpointRunId(record, position) });
  const tools = ports.tools.specsFor(grantedTools(record, settings.defaultTools), record.frozenTools);
  const model = modelFor(record.spec, "reason", settings.models);
  // Packing again on a retry reads the same steps and summaries: it decides the same and pays nothing.
  const context = await packGoalContext(ports, {
    record,
    modelId: model.modelId,
    summarize: modelFor(record.spec, "summarize", settings.models),
    instructions: REASON_INSTRUCTIONS,
    tools,
    state: stateText(record, iteration),
    history,
    ...(settings.context ? { settings: settings.context } : {}),
  });
  const checkpoint = await checkpointedCall(
    ports,
    key,
    (call) => reasonRequest({ record, context, tools, model, call }),
    {
      early: reasonLookup,
      // The summarize calls compaction just made are paid from the same budget, not counted yet.
      budget: { remainingUsd: remainingBudgetUsd(record) - uncountedCostUsd(context) },
      // Kept with the turn: the next prompt shows it after the same message, reasoning included.
      conversation: context.packed.conversation,
      capacity: capacityContextOf(record),
      recordSchema: record.schema,
      ...(tenantLimits ? { tenantLimits } : {}),
      // Calls made after the state's point that its basis may hold: this call (a crashed attempt
      // may have checkpointed it) and compaction's summarize calls, counted only by this commit.
      alongside: () => stepState.write([key, ...context.uncounted.map((checkpoint) => checkpoint.key)]),
    },
  );
  const now = ports.now();
  const { turn } = checkpoint;
  const gated = gatedCalls(record, turn, ports.tools, grantedTools(record, settings.defaultTools));
  return commitTurnAndAct(ports, settings, {
    loaded: base,
    checkpoint,
    position,
    counting: {
      role: "reason",
      gated,
      now,
      first: verify,
      before: (next) => countCompactionUsage(next, context.uncounted, now),
    },
    stepLogRead: { newest: history.steps.at(-1) },
  });
}

function uncountedCostUsd(context: { readonly uncounted: readonly ModelCheckpoint[] }): number {
  return context.uncounted.reduce((sum, { turn }) => sum + costOf(turn.modelId, turn.usage), 0);
}
