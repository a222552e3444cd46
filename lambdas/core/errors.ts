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
