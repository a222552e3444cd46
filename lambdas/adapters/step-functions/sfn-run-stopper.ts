import { type SFNClient, StopExecutionCommand } from "@aws-sdk/client-sfn";
import { GoalLoopsError } from "../../core/goal/errors";
import { unqualifiedStateMachineArn } from "../../core/goal/runs-on";
import { executionName } from "../../core/loop/continue-as-new";
import type { RunRef, StopRun } from "../../core/ports/run-control";

/**
 * The ARN of a run's execution: the state machine's ARN with `:execution:` and the run's name. An
 * execution started on a version or an alias has the state machine's own (unqualified) ARN in its.
 */
export function executionArnOf(run: RunRef): string {
  const machine = unqualifiedStateMachineArn(run.stateMachineArn);
  return `${machine.replace(":stateMachine:", ":execution:")}:${executionName(run.goalId, run.runId)}`;
}

/** Errors after which the same StopExecution may succeed later. */
const RETRYABLE = new Set(["ThrottlingException", "ServiceUnavailable"]);

/** Step Functions could not be asked to stop a run (throttling, a 5xx, access denied). */
export class ExecutionStopError extends GoalLoopsError {
  override readonly name = "ExecutionStopError";
  override readonly retryable: boolean;

  constructor(message: string, retryable: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.retryable = retryable;
  }
}

/**
 * StopExecution of a run's execution. An execution that never started (`ExecutionDoesNotExist`)
 * needs no stopping, and stopping a finished one changes nothing, so both resolve: a repeated
 * cancel is harmless.
 */
export function sfnRunStopper(client: SFNClient): StopRun {
  return async (run) => {
    const executionArn = executionArnOf(run);
    try {
      // The cause is a human's reason: kept short, it shows in the execution's history.
      await client.send(
        new StopExecutionCommand({ executionArn, error: "GoalCancelled", cause: run.cause.slice(0, 256) }),
      );
    } catch (error) {
      const shape: { name?: unknown; $fault?: unknown } =
        typeof error === "object" && error !== null ? error : {};
      const name = typeof shape.name === "string" ? shape.name : "UnknownError";
      if (name === "ExecutionDoesNotExist") return;
      throw new ExecutionStopError(
        `Step Functions did not stop ${executionArn}: ${name}`,
        RETRYABLE.has(name) || shape.$fault !== "client",
        {
          cause: error,
        },
      );
    }
  };
}
