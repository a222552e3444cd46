import { GoalLoopsError } from "../core/goal/errors";

/**
 * A tool call that failed in a way the model can act on (bad input, refused, file missing). The
 * runner turns it into an error toolResult; it never escapes `ToolRunner.run`. Its `name` is the
 * outcome's stable `errorName`, so verify checks and tests can match on it.
 */
export class ToolCallError extends GoalLoopsError {
  override readonly name: string;

  constructor(name: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = name;
  }
}
