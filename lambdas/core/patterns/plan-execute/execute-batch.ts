import { settle } from "../../goal/goal-change";
import { remainingBudgetUsd } from "../../goal/limits";
import { stepById } from "../../goal/plan";
import { gatedCalls } from "../../loop/gates/action-gate";
import { grantedTools } from "../../loop/loop-deps";
import { isOffPlan } from "../../loop/off-plan-call";
import { isRunningIn, type RunPosition, type StepResult } from "../../loop/step-result";
import { chain, readGoal, updateGoal } from "../../loop/update-goal";
import { capacityContextOf, isCapacityWait } from "../../models/capacity/capacity-governor";
import { callAndCheckpoint, isCostLimitReached } from "../../models/model-call";
import { recordModelUsage } from "../../models/model-prices";
import { modelFor } from "../../models/model-thinking";
import type { Clock } from "../../ports/clock";
import type { GoalStore, ModelCheckpoint, VersionedGoal } from "../../ports/goal-store";
import { isTenantBudgetReached } from "../../tenants/tenant-spend";
import { batchCheckpointKey, batchStepsLeft, batchTurnKey, markBatchStep } from "./batch";
import type { ExecutePorts } from "./execute";
import { executeRequest } from "./execute-prompt";
import type { PlanExecuteSettings } from "./plan-execute-deps";

/** One branch of the ExecuteBatch Map state: the run's position and the batch step it makes the turn for. */
export interface BatchStepPosition extends RunPosition {
  readonly stepId: string;
}

/**
 * How often a branch commits its turn's usage again after other branches wrote the goal first: each
 * conflict means another branch's commit went through, so a batch's branches all get theirs in.
 */
const MAX_BRANCH_COMMITS = 25;

/**
 * ExecuteBatchStep: one branch of the ExecuteBatch Map state. Makes the executor turn of one batch
 * step (role `execute`, the step's own call number), checkpointed under (goal, batch run, batch
 * iteration, execute, the step's ordinal) so parallel branches never share a key, and counts its
 * usage on the goal with whether a call of it waits for a human. It runs no tool: the loop acts on
 * the batch's turns one step per iteration afterwards (Execute), so each step keeps its own gate,
 * step record and observation.
 *
 * Each branch may spend its share of the remaining budget (the remaining `maxCostUsd` over the
 * branches still to call): a call that would need more is not made here, and Execute makes it later
 * against the whole budget, or asks for a limit decision. A retried branch (a crash after the
 * checkpoint) finds its checkpoint and only counts it, once.
 */
export async function executeBatchStep(
  ports: ExecutePorts,
  settings: Pick<PlanExecuteSettings, "defaultTools" | "models">,
  input: BatchStepPosition,
): Promise<StepResult> {
  const answer: StepResult = {
    goalId: input.goalId,
    runId: input.runId,
    iteration: input.iteration,
    next: "execute",
  };
  const loaded = await readGoal(ports.goals, input.goalId);
  const { record } = loaded;
  const state = record.planState;
  const batch = state?.batch;
  if (!isRunningIn(record, input.runId) || !state || !batch) return answer;
  const left = batchStepsLeft(record);
  const entry = left.find((candidate) => candidate.stepId === input.stepId);
  const step = entry && stepById(state, entry.stepId);
  if (!entry || !step || entry.counted) return answer;

  const key = batchCheckpointKey(record.goalId, batchTurnKey(batch, entry));
  const granted = grantedTools(record, settings.defaultTools);
  const tools = ports.tools.specsFor(granted, record.frozenTools);
  const found = await ports.goals.findCheckpoint(key);
  let checkpoint: ModelCheckpoint;
  if (found.checkpoint) checkpoint = found.checkpoint;
  else {
    const calling = left.filter((candidate) => !candidate.counted).length;
    try {
      checkpoint = await callAndCheckpoint(
        ports,
        key,
        entry.call,
        (call) =>
          executeRequest({
            record,
            state,
            step,
            tools,
            model: modelFor(record.spec, "execute", settings.models),
            call,
          }),
        {
          budget: { remainingUsd: remainingBudgetUsd(record) / Math.max(1, calling) },
          // A branch never books ahead: a turn it cannot make now, Execute makes (and waits for).
          capacity: { ...capacityContextOf(record), mayBook: false },
          recordSchema: record.schema,
        },
      );
    } catch (error) {
      // Not made: Execute makes this call when it reaches the step, against the whole budget and
      // waiting for capacity if it has to.
      if (isCostLimitReached(error) || isCapacityWait(error) || isTenantBudgetReached(error)) return answer;
      throw error;
    }
  }
  const onPlan = granted.filter((tool) => !isOffPlan(step, { name: tool }));
  const gated = gatedCalls(record, checkpoint.turn, ports.tools, onPlan).length > 0;
  await countBatchTurn(ports, loaded, { stepId: entry.stepId, checkpoint, gated });
  return answer;
}

/**
 * Counts a batch turn's usage on the goal once (the entry's `counted` flag), whatever the goal's
 * status: the call was paid for. Parallel branches commit under the goal's optimistic version; a
 * branch that lost the race reads the goal again and re-applies its own change to what the winner
 * left, so no branch's usage is lost.
 */
async function countBatchTurn(
  ports: { readonly goals: GoalStore; readonly now: Clock },
  loaded: VersionedGoal,
  turn: { readonly stepId: string; readonly checkpoint: ModelCheckpoint; readonly gated: boolean },
): Promise<void> {
  const now = ports.now();
  let current = loaded;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await updateGoal(ports.goals, current, (record) => {
        const entry = record.planState?.batch?.steps.find((candidate) => candidate.stepId === turn.stepId);
        if (!entry || entry.counted) return undefined;
        return chain(
          record,
          (next) => recordModelUsage(next, "execute", turn.checkpoint.turn, now),
          (next) => settle(markBatchStep(next, turn.stepId, { counted: true, gated: turn.gated }, now), []),
        );
      });
      return;
    } catch (error) {
      const conflict = error instanceof Error && error.name === "ConcurrentModificationError";
      if (!conflict || attempt >= MAX_BRANCH_COMMITS) throw error;
      current = await readGoal(ports.goals, loaded.record.goalId);
    }
  }
}
