import { GoalLoopsError } from "../../core/goal/errors";
import type { Pattern } from "../../core/goal/goal-spec";

/** The chosen pattern has no state machine in this deployment (STATE_MACHINE_ARNS has no entry). */
export class PatternUnavailableError extends GoalLoopsError {
  override readonly name = "PatternUnavailableError";
  readonly pattern: Pattern;

  constructor(pattern: Pattern, reason: string, available: readonly string[]) {
    super(
      `Pattern '${pattern}' (${reason}) is not deployed here; available: ${available.join(", ") || "none"}`,
    );
    this.pattern = pattern;
  }
}

/**
 * The request carries no IAM caller. Behind API Gateway with IAM auth this cannot happen, so it
 * means a route was deployed without auth: refuse rather than guess a tenant.
 */
export class MissingCallerIdentityError extends GoalLoopsError {
  override readonly name = "MissingCallerIdentityError";
}

/** The goal's status does not allow what was asked (resume a goal that is not paused, cancel a final one). */
export class InvalidStatusError extends GoalLoopsError {
  override readonly name = "InvalidStatusError";
  readonly goalId: string;
  readonly status: string;

  constructor(goalId: string, status: string, message: string) {
    super(message);
    this.goalId = goalId;
    this.status = status;
  }
}

/** The function's environment is incomplete or malformed: a deployment bug, raised at cold start. */
export class ApiConfigurationError extends GoalLoopsError {
  override readonly name = "ApiConfigurationError";
}

/** The deployment wired no goal history into the API: the steps, fork and replay routes cannot answer. */
export class HistoryUnavailableError extends GoalLoopsError {
  override readonly name = "HistoryUnavailableError";
}
