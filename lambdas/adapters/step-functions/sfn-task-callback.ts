import { SendTaskSuccessCommand, type SFNClient } from "@aws-sdk/client-sfn";
import type { StepResult } from "../../core/loop/step-result";
import { type TaskCallback, TaskTokenGoneError } from "../../core/ports/task-callback";

/** The errors after which a token can never be answered: the approval has expired. */
const GONE = new Set(["TaskTimedOut", "InvalidToken", "TaskDoesNotExist"]);

/** TaskCallback over SendTaskSuccess. Other errors (throttling, 5xx) propagate so the caller retries. */
export function sfnTaskCallback(client: SFNClient): TaskCallback {
  return {
    async succeed(taskToken: string, output: StepResult): Promise<void> {
      try {
        await client.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(output) }));
      } catch (error) {
        const name = error instanceof Error ? error.name : "";
        // The SDK's message may quote the request; never let the token reach a log through it.
        if (GONE.has(name)) throw new TaskTokenGoneError(name);
        throw error;
      }
    },
  };
}
