import { GoalLoopsError } from "../../core/goal/errors";

/*
 * The error of starting a run, apart from the starter (sfn-run-starter.ts) so that what only maps
 * or names it (the API's error answers, the state machines' Retry) does not load the Step
 * Functions client: the OpenAPI document's and the event stream's functions answer errors through
 * the same table as the goals API, and never start a run.
 */

/** The name a state machine's Retry matches: starting may succeed later (throttling, a 5xx). */
export const EXECUTION_START_THROTTLED = "ExecutionStartThrottled";

/**
 * Step Functions refused or could not be asked to start a run. Named `ExecutionStartThrottled` when
 * the same StartExecution may succeed later, so a Retry can match it, and `ExecutionStartError` when
 * it cannot (access denied, a bad ARN): that one is never retried.
 */
export class ExecutionStartError extends GoalLoopsError {
  override readonly name: "ExecutionStartError" | typeof EXECUTION_START_THROTTLED;
  override readonly retryable: boolean;
  readonly goalId: string;

  constructor(goalId: string, message: string, retryable: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.goalId = goalId;
    this.retryable = retryable;
    this.name = retryable ? EXECUTION_START_THROTTLED : "ExecutionStartError";
  }
}
