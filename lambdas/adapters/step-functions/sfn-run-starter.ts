import { type SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { executionName } from "../../core/loop/continue-as-new";
import { ExecutionStartError } from "./execution-start-error";

/** One run of a goal: a Step Functions execution named `${goalId}-${runId}` with input `{goalId, runId}`. */
export interface RunStart {
  readonly stateMachineArn: string;
  readonly goalId: string;
  readonly runId: string;
}

/** Starts a run; resolves when it is started or already was. Throws ExecutionStartError. */
export type StartRun = (run: RunStart) => Promise<void>;

/** Errors after which the same StartExecution may succeed later. */
const RETRYABLE = new Set(["ExecutionLimitExceeded", "ThrottlingException", "ServiceUnavailable"]);

interface SdkErrorShape {
  readonly name?: unknown;
  readonly $fault?: unknown;
}

/**
 * StartExecution, made idempotent by the execution name: a repeat with the same name and input
 * while the first runs returns it, and `ExecutionAlreadyExists` (that name was used before) means
 * this run was already started, which is what the caller wanted.
 */
export function sfnRunStarter(client: SFNClient): StartRun {
  return async (run) => {
    try {
      await client.send(
        new StartExecutionCommand({
          stateMachineArn: run.stateMachineArn,
          name: executionName(run.goalId, run.runId),
          input: JSON.stringify({ goalId: run.goalId, runId: run.runId }),
        }),
      );
    } catch (error) {
      const shape: SdkErrorShape = typeof error === "object" && error !== null ? error : {};
      const name = typeof shape.name === "string" ? shape.name : "UnknownError";
      if (name === "ExecutionAlreadyExists") return;
      const retryable = RETRYABLE.has(name) || shape.$fault !== "client";
      throw new ExecutionStartError(
        run.goalId,
        `Step Functions did not start run ${executionName(run.goalId, run.runId)}: ${name}`,
        retryable,
        { cause: error },
      );
    }
  };
}
