import { GoalLoopsError } from "../goal/errors";
import type { StepResult } from "../loop/step-result";

/**
 * Answers a Step Functions callback task (`.waitForTaskToken`). The token comes from the approval
 * record and goes nowhere else: not into events, logs, messages or answers.
 */
export interface TaskCallback {
  /** SendTaskSuccess with the next state payload. Throws TaskTokenGoneError when the wait is over. */
  succeed(taskToken: string, output: StepResult): Promise<void>;
}

/**
 * The wait the token belonged to is over (`TaskTimedOut`, `InvalidToken`, `TaskDoesNotExist`):
 * nobody can be woken with it any more; the approval is `expired`.
 */
export class TaskTokenGoneError extends GoalLoopsError {
  override readonly name = "TaskTokenGoneError";
  readonly reason: string;

  constructor(reason: string, options?: { cause?: unknown }) {
    super(`The task token's wait is over (${reason})`, options);
    this.reason = reason;
  }
}
