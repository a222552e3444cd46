import type { CapacityWaitActivity } from "../goal/goal-activity";
import { goalEvent, settle } from "../goal/goal-change";
import { pause } from "../goal/goal-lifecycle";
import type { GoalRecord } from "../goal/goal-record";
import { isCapacityWait } from "../models/capacity/capacity-governor";
import type { Clock } from "../ports/clock";
import type { GoalStore } from "../ports/goal-store";
import { isTenantBudgetReached, tenantBudgetStop } from "../tenants/tenant-spend";
import { type CostLimitPorts, stopAtCostLimit } from "./cost-limit";
import { isRunningIn, type NextStep, type RunPosition, type StepResult, stopped } from "./step-result";
import { readGoal, updateGoal } from "./update-goal";

export interface CapacityWaitPorts {
  readonly goals: GoalStore;
  readonly now: Clock;
}

/**
 * Runs a model-calling step; when its call has no model capacity now (a CapacityWaitError: the
 * governor's quota is booked, or Bedrock throttled it), nothing of the call was made or paid. The
 * goal stays `running` and notes what it waits for (`activity`, a `capacity.waiting` event), and
 * the step answers `wait_for_capacity`: the run waits in a Wait state, no Lambda running, then
 * takes the route `resume` back to this step, which asks again (spending the booking it made).
 * A wait never outlasts the goal's deadline: the step after it meets the limit like any other.
 */
export async function waitForCapacity(
  ports: CapacityWaitPorts,
  position: RunPosition,
  resume: NextStep,
  step: () => Promise<StepResult>,
): Promise<StepResult> {
  try {
    return await step();
  } catch (error) {
    if (!isCapacityWait(error)) throw error;
    const wait = error;
    const now = ports.now();
    let waitSeconds = wait.waitSeconds;
    const { record } = await updateGoal(
      ports.goals,
      await readGoal(ports.goals, position.goalId),
      (current) => {
        if (!isRunningIn(current, position.runId)) return undefined;
        waitSeconds = untilDeadline(current, now, wait.waitSeconds);
        const activity = nextActivity(current.activity, {
          model: wait.model,
          role: wait.role ?? current.activity?.role ?? "reason",
          reason: wait.reason,
          now,
          waitSeconds,
          hold: wait.hold,
        });
        const next: GoalRecord = { ...current, activity, updatedAt: now.toISOString() };
        return settle(next, [
          goalEvent(current, "capacity.waiting", now, {
            role: activity.role,
            model: activity.model,
            reason: activity.reason,
            waitSeconds,
            until: activity.until,
            attempts: activity.attempts,
          }),
        ]);
      },
    );
    if (!isRunningIn(record, position.runId)) return stopped(record, position);
    return {
      goalId: position.goalId,
      runId: position.runId,
      iteration: record.runIteration,
      next: "wait_for_capacity",
      resume,
      waitSeconds,
    };
  }
}

/** The goal's wait after this one: the same call's `since` and count go on; another call starts anew. */
function nextActivity(
  previous: CapacityWaitActivity | undefined,
  wait: {
    readonly model: string;
    readonly role: CapacityWaitActivity["role"];
    readonly reason: CapacityWaitActivity["reason"];
    readonly now: Date;
    readonly waitSeconds: number;
    readonly hold: CapacityWaitActivity["hold"];
  },
): CapacityWaitActivity {
  const sameCall = previous?.model === wait.model && previous.role === wait.role;
  return {
    kind: "waiting_for_capacity",
    model: wait.model,
    role: wait.role,
    since: sameCall ? previous.since : wait.now.toISOString(),
    until: new Date(wait.now.getTime() + wait.waitSeconds * 1000).toISOString(),
    reason: wait.reason,
    attempts: sameCall ? previous.attempts + 1 : 1,
    ...(wait.hold === undefined ? {} : { hold: wait.hold }),
  };
}

/** A wait ends by the goal's deadline at the latest (at least one second, as a Wait state counts). */
function untilDeadline(record: GoalRecord, now: Date, waitSeconds: number): number {
  const deadline = record.spec.limits.deadline;
  if (deadline === undefined) return waitSeconds;
  const left = Math.ceil((Date.parse(deadline) - now.getTime()) / 1000);
  return Math.max(1, Math.min(waitSeconds, left));
}

/**
 * Runs a model-calling step; when its goal's tenant has spent its daily budget
 * (TenantBudgetReachedError, raised before a call is made), the goal pauses there with a `limit`
 * stop reason naming the tenant budget (`tenant.spendPerDayUsd`). Nothing of the call was sent or
 * paid, and everything the run did before is committed: a human's resume, once the budget was
 * raised or the day turned, takes the iteration over in a new run (as after a human's pause).
 */
export async function pauseOverTenantBudget(
  ports: CapacityWaitPorts,
  position: RunPosition,
  step: () => Promise<StepResult>,
): Promise<StepResult> {
  try {
    return await step();
  } catch (error) {
    if (!isTenantBudgetReached(error)) throw error;
    const now = ports.now();
    const { record } = await updateGoal(
      ports.goals,
      await readGoal(ports.goals, position.goalId),
      (current) =>
        isRunningIn(current, position.runId)
          ? pause({ ...current, activity: undefined }, tenantBudgetStop(error), now, {
              tenantId: error.tenantId,
              spentUsd: error.spentUsd,
              budgetUsd: error.budgetUsd,
              day: error.day,
            })
          : undefined,
    );
    return stopped(record, position);
  }
}

/**
 * A model-calling step as every handler runs it: a call the budget cannot pay for stops at the
 * cost limit (`stopAtCostLimit`), a call without capacity waits (`waitForCapacity`, which `resume`
 * brings back to the step), and a goal whose tenant spent its day's budget pauses
 * (`pauseOverTenantBudget`).
 */
export function runModelStep(
  ports: CapacityWaitPorts & CostLimitPorts,
  position: RunPosition,
  resume: NextStep,
  step: () => Promise<StepResult>,
): Promise<StepResult> {
  return pauseOverTenantBudget(ports, position, () =>
    waitForCapacity(ports, position, resume, () => stopAtCostLimit(ports, position, step)),
  );
}
