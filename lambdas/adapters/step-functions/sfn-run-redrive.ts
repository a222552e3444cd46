import { DescribeExecutionCommand, RedriveExecutionCommand, type SFNClient } from "@aws-sdk/client-sfn";
import type { RedriveRun } from "../../core/ports/run-control";
import { ExecutionStatusError } from "./sfn-run-status";
import { executionArnOf } from "./sfn-run-stopper";

/** Answers that mean "this execution cannot be redriven", not "ask again later". */
const NOT_REDRIVABLE = new Set(["ExecutionNotRedrivable", "ExecutionDoesNotExist"]);

/**
 * Step Functions redrive of a run's failed execution. `isRedrivable` reads `redriveStatus`
 * (DescribeExecution); the local runtime answers none, so every retry there is a new run. Redriving
 * an execution a retried Lambda redrove already is refused (it runs again): nothing happens twice.
 */
export function sfnRunRedrive(client: SFNClient): RedriveRun {
  return {
    async isRedrivable(run) {
      const executionArn = executionArnOf(run);
      try {
        const described = await client.send(new DescribeExecutionCommand({ executionArn }));
        return described.redriveStatus === "REDRIVABLE";
      } catch (error) {
        const name = error instanceof Error ? error.name : "UnknownError";
        if (NOT_REDRIVABLE.has(name)) return false;
        throw new ExecutionStatusError(`Step Functions did not describe ${executionArn}: ${name}`, {
          cause: error,
        });
      }
    },
    async redrive(run) {
      const executionArn = executionArnOf(run);
      try {
        await client.send(new RedriveExecutionCommand({ executionArn }));
        return true;
      } catch (error) {
        const name = error instanceof Error ? error.name : "UnknownError";
        if (NOT_REDRIVABLE.has(name)) return false;
        throw new ExecutionStatusError(`Step Functions did not redrive ${executionArn}: ${name}`, {
          cause: error,
        });
      }
    },
  };
}
