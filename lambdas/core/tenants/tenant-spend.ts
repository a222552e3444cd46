import { GoalLoopsError } from "../goal/errors";
import { type StopReasonInput, TENANT_SPEND_LIMIT } from "../goal/goal-lifecycle";

export { TENANT_SPEND_LIMIT };

/** The UTC day a spend counts toward, as the store keys it: `YYYY-MM-DD`. */
export function spendDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** The stable name of TenantBudgetReachedError: the steps' capacity wrapper catches it by name. */
export const TENANT_BUDGET_REACHED = "TenantBudgetReached";

/**
 * The goal's tenant has spent its `spendPerDayUsd` today: the next model call is not made (nothing
 * was sent or paid). The step pauses the goal (`limit`, `tenant.spendPerDayUsd`); a human resumes
 * it once an operator raised the budget or the day turned.
 */
export class TenantBudgetReachedError extends GoalLoopsError {
  override readonly name = TENANT_BUDGET_REACHED;
  constructor(
    readonly tenantId: string,
    readonly spentUsd: number,
    readonly budgetUsd: number,
    readonly day: string,
  ) {
    super(
      `Tenant '${tenantId}' spent $${spentUsd.toFixed(4)} on models on ${day} (UTC); its daily budget is $${budgetUsd} (tenants.limits spendPerDayUsd)`,
    );
  }
}

/** By name, not instanceof: the error may come from another copy of this module (a bundle). */
export function isTenantBudgetReached(error: unknown): error is TenantBudgetReachedError {
  return error instanceof Error && error.name === TENANT_BUDGET_REACHED;
}

/** The stop reason of a goal paused by its tenant's daily budget, naming the budget and how to go on. */
export function tenantBudgetStop(error: TenantBudgetReachedError): StopReasonInput {
  return {
    kind: "limit",
    detail: TENANT_SPEND_LIMIT,
    message: `${error.message}. Raise it (tenants.limits in the configuration, or POST /tenants/${error.tenantId}/limits), or wait for the next UTC day, then resume the goal`,
  };
}
