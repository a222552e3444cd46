import { goalEvent, settle } from "../goal/goal-change";
import { isCostLimitReached } from "../models/model-call";
import type { Clock } from "../ports/clock";
import type { GoalStore } from "../ports/goal-store";
import { isRunningIn, type RunPosition, type StepResult } from "./step-result";
import { readGoal, updateGoal } from "./update-goal";

export interface CostLimitPorts {
  readonly goals: GoalStore;
  readonly now: Clock;
}

/**
 * Runs a model-calling step; when the goal's remaining budget cannot pay for its next call at that
 * call's worst case (CostLimitReachedError, the call not made), the goal notes the shortfall
 * (`costShortfall`, `cost.limit_reached`) and the step answers `limit_decision`: the run waits for a
 * human to raise `maxCostUsd` or end the goal, and the step runs again once the budget allows it.
 * Nothing of the step was committed before the call, so nothing is lost or done twice.
 */
export async function stopAtCostLimit(
  ports: CostLimitPorts,
  position: RunPosition,
  step: () => Promise<StepResult>,
): Promise<StepResult> {
  try {
    return await step();
  } catch (error) {
    if (!isCostLimitReached(error)) throw error;
    const shortfall = error;
    const now = ports.now();
    const { record } = await updateGoal(
      ports.goals,
      await readGoal(ports.goals, position.goalId),
      (current) =>
        isRunningIn(current, position.runId)
          ? settle(
              {
                ...current,
                costShortfall: {
                  role: shortfall.role,
                  neededUsd: shortfall.neededUsd,
                  at: now.toISOString(),
                },
                updatedAt: now.toISOString(),
              },
              [
                goalEvent(current, "cost.limit_reached", now, {
                  role: shortfall.role,
                  neededUsd: shortfall.neededUsd,
                  remainingUsd: shortfall.remainingUsd,
                }),
              ],
            )
          : undefined,
    );
    const next = isRunningIn(record, position.runId) ? "limit_decision" : "stop";
    return { goalId: position.goalId, runId: position.runId, iteration: record.runIteration, next };
  }
}
