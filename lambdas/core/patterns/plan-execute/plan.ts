import { settle } from "../../goal/goal-change";
import type { GoalRecord } from "../../goal/goal-record";
import { remainingBudgetUsd } from "../../goal/limits";
import { markLoop } from "../../goal/loop-marker";
import { checkpointRunId } from "../../goal/run-takeover";
import { gateOf, isPlanGate } from "../../loop/gates/action-gate";
import { grantedTools } from "../../loop/loop-deps";
import { isRunningIn, type RunPosition, type StepResult, stopped } from "../../loop/step-result";
import { chain, readGoal, updateGoal } from "../../loop/update-goal";
import { type CapacityGovernor, capacityContextOf } from "../../models/capacity/capacity-governor";
import { checkpointedCall } from "../../models/model-call";
import { recordModelUsage } from "../../models/model-prices";
import { modelFor } from "../../models/model-thinking";
import type { Clock } from "../../ports/clock";
import type { GoalStore } from "../../ports/goal-store";
import type { ModelClient } from "../../ports/model-client";
import type { ToolRunner } from "../../ports/tool-runner";
import { adoptPlan, assignment, judgePlan, rejectPlan, skipStep } from "./plan-changes";
import type { PlanExecuteSettings } from "./plan-execute-deps";
import { parsePlanAnswer, planRequest } from "./plan-prompt";

export interface PlanPorts {
  readonly goals: GoalStore;
  readonly model: ModelClient;
  /** Paces its model calls within the models' quotas (see CheckpointedCallPorts). */
  readonly capacity?: CapacityGovernor;
  /** Lists the granted tools in the prompt, so the planner plans with them. */
  readonly tools: Pick<ToolRunner, "specsFor">;
  readonly now: Clock;
}

/** After the plan: a pending plan gate asks a human, anything else goes back to Observe. */
function answerAfterPlan(record: GoalRecord, position: RunPosition): StepResult {
  const gate = gateOf(record, position);
  const waits = isPlanGate(gate) && gate?.outcome === "pending";
  return { ...position, next: waits ? "approval" : "verify" };
}

/**
 * Plan: serves the plan request Observe armed — the first plan, or the pending replan with its
 * strategy (repair, replace_subplan, global; skip needs no model call). The `plan` call (role plan,
 * the heavy model) is checkpointed under (goal, run, iteration, plan, ordinal = requests served so
 * far), its usage counted once; the merged plan is validated with zod. Answers `approval` when the
 * plan needs a human, else `verify` (→ Observe decides the next step).
 *
 * A retry repeats nothing: a request is served once (`served`), and its call is checkpointed.
 */
export async function plan(
  ports: PlanPorts,
  settings: PlanExecuteSettings,
  input: RunPosition,
): Promise<StepResult> {
  const { goalId, runId } = input;
  const loaded = await readGoal(ports.goals, goalId);
  const { record } = loaded;
  if (!isRunningIn(record, runId)) return stopped(record, input);
  const iteration = record.runIteration;
  const position = { ...input, iteration };
  const state = record.planState;
  if (!state || state.served >= state.requests) return answerAfterPlan(record, position);
  const ordinal = state.served;
  const isServed = (current: GoalRecord) =>
    current.runId !== runId || (current.planState?.served ?? ordinal) !== ordinal;
  const now = ports.now();
  const marked = (current: GoalRecord) =>
    markLoop(current, { runId, iteration, phase: "planned" }, "verify", now);
  const assigned = assignment(state);

  if (assigned.strategy === "skip") {
    const skipped = await updateGoal(ports.goals, loaded, (current) =>
      isServed(current) || !isRunningIn(current, runId)
        ? undefined
        : chain(current, (next) => skipStep(next, now), marked),
    );
    return isRunningIn(skipped.record, runId)
      ? answerAfterPlan(skipped.record, position)
      : stopped(skipped.record, position);
  }

  const tools = ports.tools.specsFor(grantedTools(record, settings.defaultTools), record.frozenTools);
  const key = { goalId, runId: checkpointRunId(record, position), iteration, role: "plan" as const, ordinal };
  const { turn } = await checkpointedCall(
    ports,
    key,
    (call) =>
      planRequest({
        record,
        state,
        replaced: assigned.replaced,
        tools,
        model: modelFor(record.spec, "plan", settings.models),
        call,
      }),
    {
      budget: { remainingUsd: remainingBudgetUsd(record) },
      capacity: capacityContextOf(record),
      recordSchema: record.schema,
    },
  );
  const judged = judgePlan(state, assigned.replaced, parsePlanAnswer(turn), tools);
  const counted = await updateGoal(ports.goals, loaded, (current) => {
    if (isServed(current)) return undefined;
    return chain(
      current,
      // Counted once per checkpoint, even when the goal stopped meanwhile: the call was paid for.
      (next) => recordModelUsage(next, "plan", turn, now),
      (next) => {
        if (isRunningIn(next, runId)) {
          return judged.ok
            ? adoptPlan(next, judged.steps, assigned, position, now)
            : rejectPlan(next, judged.issues, settings, now);
        }
        // The goal stopped meanwhile: the request is used up (its usage counted); Observe asks anew.
        const consumed = next.planState && { ...next.planState, served: next.planState.served + 1 };
        return settle({ ...next, ...(consumed ? { planState: consumed } : {}) }, []);
      },
      (next) => (isRunningIn(next, runId) ? marked(next) : undefined),
    );
  });
  if (!isRunningIn(counted.record, runId)) return stopped(counted.record, position);
  return answerAfterPlan(counted.record, position);
}
