import { DescribeExecutionCommand, type SFNClient } from "@aws-sdk/client-sfn";
import { GoalLoopsError } from "../../core/goal/errors";
import type { RunIsLive } from "../../core/ports/run-control";
import { executionArnOf } from "./sfn-run-stopper";

/** Step Functions could not be asked about a run (throttling, a 5xx, access denied). */
export class ExecutionStatusError extends GoalLoopsError {
  override readonly name = "ExecutionStatusError";
}

/**
 * DescribeExecution of a run's execution: live while `RUNNING`. An execution that never started
 * (`ExecutionDoesNotExist`, e.g. the local runtime restarted) is as over as one that ended.
 */
export function sfnRunIsLive(client: SFNClient): RunIsLive {
  return async (run) => {
    const executionArn = executionArnOf(run);
    try {
      const described = await client.send(new DescribeExecutionCommand({ executionArn }));
      return described.status === "RUNNING";
    } catch (error) {
      const name = error instanceof Error ? error.name : "UnknownError";
      if (name === "ExecutionDoesNotExist") return false;
      throw new ExecutionStatusError(`Step Functions did not describe ${executionArn}: ${name}`, {
        cause: error,
      });
    }
  };
}
