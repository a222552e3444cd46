import { ExecutionStartError } from "../../adapters/step-functions/execution-start-error";
import { fail } from "../../core/goal/goal-lifecycle";
import type { VersionedGoal } from "../../core/ports/goal-store";
import type { GoalsApiDeps } from "./goals-api-deps";

/**
 * Starts run r1. When Step Functions refuses and the goal is still as created (version 1: no step
 * has loaded it yet), the goal is marked `failed` (stopReason infrastructure, redrivable) rather
 * than left `running` with no execution behind it; the caller gets a 502 naming the goal.
 */
export async function startFirstRun(
  deps: GoalsApiDeps,
  goal: VersionedGoal,
  stateMachineArn: string,
): Promise<void> {
  const { goalId, runId } = goal.record;
  try {
    await deps.startRun({ stateMachineArn, goalId, runId });
  } catch (error) {
    if (!(error instanceof ExecutionStartError)) throw error;
    deps.logger.error("run did not start", { goalId, runId, error });
    if (goal.version === 1) await markFailed(deps, goal, error);
    throw error;
  }
}

async function markFailed(
  deps: GoalsApiDeps,
  goal: VersionedGoal,
  cause: ExecutionStartError,
): Promise<void> {
  const stopReason = { kind: "infrastructure", detail: cause.name, message: cause.message } as const;
  try {
    const failed = fail(goal.record, stopReason, deps.now());
    await deps.store.commit(failed.record, goal.version, failed.events);
  } catch (error) {
    // A step that loaded the goal meanwhile owns it now; anything else is logged for an operator.
    deps.logger.error("could not mark the goal failed after its run did not start", {
      goalId: goal.record.goalId,
      error,
    });
  }
}
