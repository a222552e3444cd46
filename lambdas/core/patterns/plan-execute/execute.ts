import { type GoalChange, goalEvent, settle } from "../../goal/goal-change";
import type { GoalRecord } from "../../goal/goal-record";
import { remainingBudgetUsd } from "../../goal/limits";
import { reached } from "../../goal/loop-marker";
import {
  type BatchTurnKey,
  type PlanState,
  type PlanStepState,
  stepById,
  withPlanState,
} from "../../goal/plan";
import { lineagePosition, sameRun } from "../../goal/run-lineage";
import { checkpointRunId } from "../../goal/run-takeover";
import { type ActPorts, actUnlessGated, commitTurnAndAct } from "../../loop/act";
import { gatedCalls } from "../../loop/gates/action-gate";
import { grantedTools } from "../../loop/loop-deps";
import { isOffPlan } from "../../loop/off-plan-call";
import { isRunningIn, type RunPosition, type StepResult, stopped } from "../../loop/step-result";
import { readGoal } from "../../loop/update-goal";
import { type CapacityGovernor, capacityContextOf } from "../../models/capacity/capacity-governor";
import { type CallOptions, callAndCheckpoint, checkpointedCall } from "../../models/model-call";
import { modelFor } from "../../models/model-thinking";
import type { CheckpointKey, ModelCheckpoint } from "../../ports/goal-store";
import type { ModelClient, ModelRequest } from "../../ports/model-client";
import type { ToolRunner } from "../../ports/tool-runner";
import { batchCheckpointKey, batchTurnKey, nextBatchStep, withBatchStep } from "./batch";
import { executeRequest } from "./execute-prompt";
import type { PlanExecuteSettings } from "./plan-execute-deps";
import { readyStep, updateStep } from "./plan-state";

export interface ExecutePorts extends ActPorts {
  readonly model: ModelClient;
  /** Paces its model calls within the models' quotas (see CheckpointedCallPorts). */
  readonly capacity?: CapacityGovernor;
  /**
   * Offers the granted tools to the executor; `riskOf` tells which calls need a human approval
   * first; `run` acts on a turn that needs none.
   */
  readonly tools: ToolRunner;
}

/**
 * The step the executor works on in this iteration: the one it already started (a retry, or a run
 * that took the iteration over), else the next step of a batch in flight (whose turn ExecuteBatch
 * made), else the next ready one — none while the plan waits for a replan, an approval or a
 * decision (a batch's steps still act while a replan waits: the replan sees the whole batch).
 */
function stepToExecute(
  record: GoalRecord,
  state: PlanState,
  position: RunPosition,
): StepToExecute | undefined {
  const current = state.current;
  if (current && sameRun(record, current, position)) {
    const step = stepById(state, current.stepId);
    if (!step) return undefined;
    if (!current.turn) return { step };
    const entry = state.batch?.steps.find((candidate) => candidate.stepId === current.stepId);
    return { step, batch: { turn: current.turn, call: entry?.call, counted: entry?.counted ?? true } };
  }
  if (state.version === 0 || state.decision || state.needsApproval) return undefined;
  const batchStep = nextBatchStep(record);
  if (batchStep && state.batch) {
    const { entry } = batchStep;
    const turn = batchTurnKey(state.batch, entry);
    return { step: batchStep.step, batch: { turn, call: entry.call, counted: entry.counted } };
  }
  if (state.pending) return undefined;
  const step = readyStep(state);
  return step && { step };
}

/** The step Execute works on and, for a batch step, where its turn is and whether it is counted. */
interface StepToExecute {
  readonly step: PlanStepState;
  readonly batch?: {
    readonly turn: BatchTurnKey;
    /** The call number the batch gave the turn (unknown only for a batch left behind). */
    readonly call: number | undefined;
    readonly counted: boolean;
  };
}

function startStep(
  record: GoalRecord,
  step: PlanStepState,
  position: RunPosition,
  now: Date,
  turn: BatchTurnKey | undefined,
): GoalChange {
  const state = record.planState;
  if (!state) return settle(record, []);
  const started = updateStep(state, step.id, (current) => ({
    ...current,
    status: "running",
    attempts: current.attempts + 1,
  }));
  const planState: PlanState = {
    ...started,
    current: lineagePosition(record, {
      stepId: step.id,
      runId: position.runId,
      iteration: position.iteration,
      ...(turn ? { turn } : {}),
    }),
  };
  // The step's turn is on the goal's usage from now on, whoever counted it.
  const next = withPlanState(
    record,
    turn ? withBatchStep(planState, step.id, { counted: true }) : planState,
    now,
  );
  return settle(next, [
    goalEvent(next, "plan.step.started", now, {
      stepId: step.id,
      attempt: step.attempts + 1,
      version: state.version,
      tool: step.tool ?? null,
      ...(turn ? { batch: true } : {}),
    }),
  ]);
}

/**
 * Execute: the executor's turn (role `execute`, the fast model) for one plan step, checkpointed under
 * (goal, run, iteration, execute, 0): its prompt is the step and its dependencies' results, never a
 * license to reinterpret the goal. The turn's tool calls are gated like ReAct's: when none needs a
 * human they run right after in the same invocation with Act's code, else in the shared Act once a
 * human decided. Answers `verify` (→ Observe) once it acted or when no step is ready; `approval`.
 *
 * A retry repeats nothing: the call is checkpointed and the `reasoned` loop marker says the usage
 * was counted and the step started.
 */
export async function execute(
  ports: ExecutePorts,
  settings: Pick<PlanExecuteSettings, "defaultTools" | "models">,
  input: RunPosition,
): Promise<StepResult> {
  const { goalId, runId } = input;
  const loaded = await readGoal(ports.goals, goalId);
  const { record } = loaded;
  if (!isRunningIn(record, runId)) return stopped(record, input);
  const iteration = record.runIteration;
  const position = { ...input, iteration };
  // A retry after the commit below: act on the counted turn (Act reuses a step an attempt logged).
  if (reached(record, runId, iteration, "reasoned"))
    return actUnlessGated(ports, settings, { loaded, position });
  const state = record.planState;
  const chosen = state && stepToExecute(record, state, position);
  if (!state || !chosen) return { ...position, next: "verify" };
  const { step, batch } = chosen;
  const turnKey = batch?.turn;

  const granted = grantedTools(record, settings.defaultTools);
  // Every granted tool, whatever the step names: one tool list for all steps keeps the prompt's
  // cached prefix the same; Act refuses a call to another tool than the step's (isOffPlan).
  const tools = ports.tools.specsFor(granted, record.frozenTools);
  const buildRequest = (call: number) =>
    executeRequest({
      record,
      state,
      step,
      tools,
      model: modelFor(record.spec, "execute", settings.models),
      call,
    });
  const options = {
    budget: { remainingUsd: remainingBudgetUsd(record) },
    capacity: capacityContextOf(record),
    recordSchema: record.schema,
  };
  // A batch step's turn is ExecuteBatch's, under its own key and call number (made here only when
  // the branch left it to the whole budget); any other step's is this iteration's.
  const checkpoint = batch
    ? await batchTurn(ports, batchCheckpointKey(goalId, batch.turn), batch.call, buildRequest, options)
    : await checkpointedCall(
        ports,
        { goalId, runId: checkpointRunId(record, position), iteration, role: "execute", ordinal: 0 },
        buildRequest,
        options,
      );
  const { turn } = checkpoint;
  // Off-plan calls are refused by Act, never run: no human is asked to approve one.
  const onPlan = granted.filter((tool) => !isOffPlan(step, { name: tool }));
  const gated = gatedCalls(record, turn, ports.tools, onPlan);
  const now = ports.now();
  return commitTurnAndAct(ports, settings, {
    loaded,
    checkpoint,
    position,
    counting: {
      role: "execute",
      gated,
      now,
      // A turn ExecuteBatch counted already is not counted again.
      countUsage: !(batch?.counted ?? false),
      after: (next) => (isRunningIn(next, runId) ? startStep(next, step, position, now, turnKey) : undefined),
    },
  });
}

/**
 * A batch step's turn: the checkpoint ExecuteBatch made, or (when it made none) the call made now
 * under the batch's key and with the call number the batch gave it.
 */
async function batchTurn(
  ports: ExecutePorts,
  key: CheckpointKey,
  call: number | undefined,
  buildRequest: (call: number) => ModelRequest,
  options: CallOptions,
): Promise<ModelCheckpoint> {
  const found = await ports.goals.findCheckpoint(key);
  if (found.checkpoint) return found.checkpoint;
  return callAndCheckpoint(ports, key, call ?? found.calls, buildRequest, options);
}
