import { checkLimits, recordAttempt, remainingBudgetUsd } from "../../goal/limits";
import { reached } from "../../goal/loop-marker";
import { checkpointRunId } from "../../goal/run-takeover";
import { type ActPorts, actUnlessGated, commitTurnAndAct } from "../../loop/act";
import { gatedCalls } from "../../loop/gates/action-gate";
import { grantedTools } from "../../loop/loop-deps";
import { isRunningIn, type RunPosition, type StepResult, stopped } from "../../loop/step-result";
import { readGoal } from "../../loop/update-goal";
import { type CapacityGovernor, capacityContextOf } from "../../models/capacity/capacity-governor";
import { callAndCheckpoint } from "../../models/model-call";
import { modelFor } from "../../models/model-thinking";
import type { ModelClient } from "../../ports/model-client";
import type { ToolRunner } from "../../ports/tool-runner";
import { attemptRequest } from "./attempt-prompt";
import type { ReflexionSettings } from "./reflexion-deps";

export interface AttemptPorts extends ActPorts {
  readonly model: ModelClient;
  /** Paces its model calls within the models' quotas (see CheckpointedCallPorts). */
  readonly capacity?: CapacityGovernor;
  /**
   * Offers tools to the model; `riskOf` tells which calls need a human approval first; `run` acts
   * on a turn that needs none.
   */
  readonly tools: ToolRunner;
}

/**
 * Attempt: one `attempt` call (heavy tier) whose prompt holds the goal and every stored lesson; its
 * tool calls (workspace_write of the result) run right after in the same invocation with Act's code,
 * or, when one needs a human approval (gated as in ReAct), in the shared Act once a human decided.
 * The attempt is counted (`attempt.started`) with the call's usage. Answers `verify` once it acted,
 * or `approval` while a gate waits; `limit_decision` when a limit was reached since Evaluate (a
 * reflection's cost may use up `maxCostUsd`).
 *
 * A retry repeats nothing: the call is checkpointed under (run, iteration, attempt), and the
 * attempt count, the usage, the gate and the `reasoned` loop marker are committed together, once.
 */
export async function attempt(
  ports: AttemptPorts,
  settings: Pick<ReflexionSettings, "models" | "defaultTools">,
  input: RunPosition,
): Promise<StepResult> {
  const { runId } = input;
  const loaded = await readGoal(ports.goals, input.goalId);
  const { record } = loaded;
  if (!isRunningIn(record, runId)) return stopped(record, input);
  const iteration = record.runIteration;
  const position = { ...input, iteration };
  // A retry after the commit below: act on the counted turn (Act reuses a step an attempt logged).
  if (reached(record, runId, iteration, "reasoned"))
    return actUnlessGated(ports, settings, { loaded, position });

  const key = {
    goalId: record.goalId,
    runId: checkpointRunId(record, position),
    iteration,
    role: "attempt" as const,
    ordinal: 0,
  };
  // Once the call is paid for, it is counted whatever the limits say now; before, a limit stops it.
  const found = await ports.goals.findCheckpoint(key);
  if (!found.checkpoint && checkLimits(record, ports.now())) return { ...position, next: "limit_decision" };
  const granted = grantedTools(record, settings.defaultTools);
  const checkpoint =
    found.checkpoint ??
    (await callAndCheckpoint(
      ports,
      key,
      found.calls,
      (call) =>
        attemptRequest({
          record,
          attempt: (record.attempts ?? 0) + 1,
          tools: ports.tools.specsFor(granted, record.frozenTools),
          model: modelFor(record.spec, "attempt", settings.models),
          call,
        }),
      {
        budget: { remainingUsd: remainingBudgetUsd(record) },
        capacity: capacityContextOf(record),
        recordSchema: record.schema,
      },
    ));
  const { turn } = checkpoint;
  const now = ports.now();
  const gated = gatedCalls(record, turn, ports.tools, granted);
  return commitTurnAndAct(ports, settings, {
    loaded,
    checkpoint,
    position,
    counting: {
      role: "attempt",
      gated,
      now,
      after: (next) => (next.status === "running" ? recordAttempt(next, now) : undefined),
    },
  });
}
