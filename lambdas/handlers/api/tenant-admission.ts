import type { GoalChange } from "../../core/goal/goal-change";
import type { GoalRecord } from "../../core/goal/goal-record";
import { runStateMachineArn } from "../../core/goal/runs-on";
import type { VersionedGoal } from "../../core/ports/goal-store";
import { takeStart } from "../../core/tenants/start-pace";
import {
  type AdmissionPorts,
  admitNewGoal,
  admitWaitingGoals,
  isWaitingForTenantCapacity,
} from "../../core/tenants/tenant-admission";
import { tenantLimitsReader } from "../../core/tenants/tenant-directory";
import { startFirstRun } from "./first-run";
import type { GoalsApiDeps } from "./goals-api-deps";

/**
 * The API's side of the tenants' limits on new goals (POST /goals, POST /goals/{goalId}/fork):
 * the start pace before anything is stored, the concurrency slot (or the wait for one) as the goal
 * is stored, and the start of its first run or of the waiting goals' runs after.
 */

/** The admission ports, when the deployment serves tenants (GoalsApiDeps `tenants`). */
export function admissionPorts(deps: GoalsApiDeps): AdmissionPorts | undefined {
  const { tenants } = deps;
  if (tenants === undefined) return undefined;
  return {
    goals: deps.store,
    tenants: tenants.store,
    limits: tenantLimitsReader(tenants.settings, tenants.store),
    startRun: (goal) => startRunOf(deps, goal),
    now: deps.now,
  };
}

/**
 * Starts a goal's first run on the state machine version it was admitted on (its `runsOn`, pinned at
 * intake, however long it waited for a slot); a pattern not deployed cannot be admitted.
 */
function startRunOf(deps: GoalsApiDeps, goal: VersionedGoal): Promise<void> {
  const arn = runStateMachineArn(goal.record, deps.stateMachineArns);
  if (arn === undefined) return Promise.reject(new Error(`pattern ${goal.record.pattern} is not deployed`));
  return startFirstRun(deps, goal, arn);
}

/**
 * Takes one start of the tenant's `startsPerMinute` (a StartLimitError, 429, when there is none),
 * for a new goal a user posted or forked; a repeated request for a goal that exists takes none.
 */
export async function takeTenantStart(deps: GoalsApiDeps, tenantId: string): Promise<void> {
  const ports = admissionPorts(deps);
  if (ports === undefined || deps.tenants === undefined) return;
  const perMinute = (await ports.limits(tenantId)).startsPerMinute;
  if (perMinute !== undefined) await takeStart(deps.tenants.store, tenantId, perMinute, deps.now());
}

/** The new goal as it will be stored: holding a slot and running, or waiting for its tenant's turn. */
export async function admitted(deps: GoalsApiDeps, change: GoalChange): Promise<GoalChange> {
  const ports = admissionPorts(deps);
  return ports === undefined ? change : admitNewGoal(ports, change);
}

/**
 * After the goal is stored: a running goal's first run starts; a waiting one stays without a run,
 * and the tenant's waiting goals are admitted while slots are free (a slot freed between the
 * admission and the store goes to them, never missed).
 */
export async function startOrQueue(
  deps: GoalsApiDeps,
  stored: VersionedGoal,
  stateMachineArn: string,
): Promise<void> {
  if (!isWaitingForTenantCapacity(stored.record)) return startFirstRun(deps, stored, stateMachineArn);
  await admitQueued(deps, stored.record);
}

/** Admits the tenant's waiting goals; a failure is logged (the goal waits for the next freed slot). */
export async function admitQueued(
  deps: GoalsApiDeps,
  record: Pick<GoalRecord, "tenantId" | "goalId">,
): Promise<void> {
  const ports = admissionPorts(deps);
  if (ports === undefined) return;
  try {
    const started = await admitWaitingGoals(ports, record.tenantId);
    if (started.length > 0)
      deps.logger.info("waiting goals admitted", { tenantId: record.tenantId, started });
  } catch (error) {
    deps.logger.error("waiting goals not admitted", {
      tenantId: record.tenantId,
      goalId: record.goalId,
      error,
    });
  }
}
