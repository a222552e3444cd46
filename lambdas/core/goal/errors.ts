/**
 * One base error for the domain. Every subclass has a stable `name`: Step Functions
 * Retry/Catch, the HTTP layer and the tests match on it, so renaming one is a breaking change.
 */
export abstract class GoalLoopsError extends Error {
  abstract override readonly name: string;
  /** Whether repeating the same step may succeed (throttling, timeouts). Fatal errors never retry. */
  readonly retryable: boolean = false;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }

  /** A plain object that survives JSON (Step Functions error output, events, HTTP answers). */
  toErrorObject(): ErrorObject {
    return { name: this.name, message: this.message, retryable: this.retryable };
  }
}

export interface ErrorObject {
  readonly name: string;
  readonly message: string;
  readonly retryable: boolean;
}

export interface ValidationIssue {
  /** Dotted path of the bad field, e.g. `successChecks.0.verify.path`. Empty for the root. */
  readonly path: string;
  readonly message: string;
}

/** Input (a GoalSpec, a revision, a directive, an event) failed its schema. */
export class ValidationError extends GoalLoopsError {
  override readonly name = "ValidationError";
  readonly issues: readonly ValidationIssue[];

  constructor(message: string, issues: readonly ValidationIssue[], options?: { cause?: unknown }) {
    super(message, options);
    this.issues = issues;
  }

  override toErrorObject(): ErrorObject & { issues: readonly ValidationIssue[] } {
    return { ...super.toErrorObject(), issues: this.issues };
  }
}

/** An operation asked for a status change the goal's status machine does not allow. */
export class IllegalTransitionError extends GoalLoopsError {
  override readonly name = "IllegalTransitionError";
  readonly goalId: string;
  readonly from: string;
  readonly to: string;
  readonly operation: string;

  constructor(details: { goalId: string; from: string; to: string; operation: string; why: string }) {
    super(
      `Goal '${details.goalId}' cannot go from '${details.from}' to '${details.to}' by ${details.operation}: ${details.why}`,
    );
    this.goalId = details.goalId;
    this.from = details.from;
    this.to = details.to;
    this.operation = details.operation;
  }
}

/** An operation that changes no status was called while the goal's status does not allow it. */
export class GoalStatusError extends GoalLoopsError {
  override readonly name = "GoalStatusError";
  readonly goalId: string;
  readonly status: string;

  constructor(details: { goalId: string; status: string; operation: string; allowed: readonly string[] }) {
    super(
      `${details.operation} needs goal '${details.goalId}' to be ${details.allowed.join(" or ")}, but it is '${details.status}'`,
    );
    this.goalId = details.goalId;
    this.status = details.status;
  }
}

/** A record broke one of the numbered invariants of DESIGN §4. Always a bug in the caller or the core. */
export class InvariantViolationError extends GoalLoopsError {
  override readonly name = "InvariantViolationError";
  /** The number of the first broken invariant (1-5). */
  readonly invariant: number;
  readonly goalId: string;

  constructor(goalId: string, invariant: number, violations: readonly string[]) {
    super(`Goal '${goalId}' breaks invariant ${invariant}: ${violations.join("; ")}`);
    this.goalId = goalId;
    this.invariant = invariant;
  }
}

/** `complete` was asked for while some success check has no evidence. */
export class UnsatisfiedChecksError extends GoalLoopsError {
  override readonly name = "UnsatisfiedChecksError";
  readonly goalId: string;
  readonly checkIds: readonly string[];

  constructor(goalId: string, checkIds: readonly string[]) {
    super(`Goal '${goalId}' cannot complete: success checks without evidence: ${checkIds.join(", ")}`);
    this.goalId = goalId;
    this.checkIds = checkIds;
  }
}

/** A model id has no entry in lambdas/core/models/model-prices.json, so its cost cannot be counted. */
export class UnknownModelPriceError extends GoalLoopsError {
  override readonly name = "UnknownModelPriceError";
  readonly modelId: string;

  constructor(modelId: string) {
    super(`No price for model '${modelId}': add it to lambdas/core/models/model-prices.json`);
    this.modelId = modelId;
  }
}

/** A revision id that is not waiting in the goal's inbox. */
export class RevisionNotFoundError extends GoalLoopsError {
  override readonly name = "RevisionNotFoundError";

  constructor(goalId: string, revisionId: string) {
    super(`Goal '${goalId}' has no queued revision '${revisionId}'`);
  }
}

/** Text that is not one of the `/goal` directive's forms. */
export class DirectiveError extends GoalLoopsError {
  override readonly name = "DirectiveError";
}
