import { type GoalChange, goalEvent, settle } from "../../goal/goal-change";
import type { GoalRecord } from "../../goal/goal-record";
import { remainingBudgetUsd } from "../../goal/limits";
import { reached } from "../../goal/loop-marker";
import { type PlanState, type PlanStepState, stepById, withPlanState } from "../../goal/plan";
import { lineagePosition, sameRun } from "../../goal/run-lineage";
import { checkpointRunId } from "../../goal/run-takeover";
import { type ActPorts, actUnlessGated, commitTurnAndAct } from "../../loop/act";
import { gatedCalls } from "../../loop/gates/action-gate";
import { grantedTools } from "../../loop/loop-deps";
import { isOffPlan } from "../../loop/off-plan-call";
import { isRunningIn, type RunPosition, type StepResult, stopped } from "../../loop/step-result";
import { readGoal } from "../../loop/update-goal";
import { checkpointedCall } from "../../models/model-call";
import { modelIdFor } from "../../models/model-tiers";
import type { ModelClient } from "../../ports/model-client";
import type { ToolRunner } from "../../ports/tool-runner";
import { executeRequest } from "./execute-prompt";
import type { PlanExecuteSettings } from "./plan-execute-deps";
import { readyStep, updateStep } from "./plan-state";

export interface ExecutePorts extends ActPorts {
  readonly model: ModelClient;
  /**
   * Offers the granted tools to the executor; `riskOf` tells which calls need a human approval
   * first; `run` acts on a turn that needs none.
   */
  readonly tools: ToolRunner;
}

/**
 * The step the executor works on in this iteration: the one it already started (a retry, or a run
 * that took the iteration over), else the next ready one — none while the plan waits for a replan,
 * an approval or a decision.
 */
function stepToExecute(
  record: GoalRecord,
  state: PlanState,
  position: RunPosition,
): PlanStepState | undefined {
  const current = state.current;
  if (current && sameRun(record, current, position)) return stepById(state, current.stepId);
  if (state.version === 0 || state.pending || state.decision || state.needsApproval) return undefined;
  return readyStep(state);
}

function startStep(record: GoalRecord, step: PlanStepState, position: RunPosition, now: Date): GoalChange {
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
    }),
  };
  const next = withPlanState(record, planState, now);
  return settle(next, [
    goalEvent(next, "plan.step.started", now, {
      stepId: step.id,
      attempt: step.attempts + 1,
      version: state.version,
      tool: step.tool ?? null,
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
  const step = state && stepToExecute(record, state, position);
  if (!state || !step) return { ...position, next: "verify" };

  const granted = grantedTools(record, settings.defaultTools);
  // Every granted tool, whatever the step names: one tool list for all steps keeps the prompt's
  // cached prefix the same; Act refuses a call to another tool than the step's (isOffPlan).
  const tools = ports.tools.specsFor(granted, record.frozenTools);
  const key = {
    goalId,
    runId: checkpointRunId(record, position),
    iteration,
    role: "execute" as const,
    ordinal: 0,
  };
  const checkpoint = await checkpointedCall(
    ports,
    key,
    (call) =>
      executeRequest({
        record,
        state,
        step,
        tools,
        modelId: modelIdFor(record.spec, "execute", settings.models),
        call,
      }),
    { budget: { remainingUsd: remainingBudgetUsd(record) } },
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
      after: (next) => (isRunningIn(next, runId) ? startStep(next, step, position, now) : undefined),
    },
  });
}
