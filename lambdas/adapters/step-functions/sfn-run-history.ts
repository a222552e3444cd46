import { DescribeExecutionCommand, GetExecutionHistoryCommand, type SFNClient } from "@aws-sdk/client-sfn";
import { GoalLoopsError, ValidationError } from "../../core/goal/errors";
import type { RunHistory } from "../../core/ports/run-history";
import { executionArnOf } from "./sfn-run-stopper";

/** Step Functions could not be asked about a run's execution (throttling, access denied, a 5xx). */
export class RunHistoryError extends GoalLoopsError {
  override readonly name = "RunHistoryError";
}

const errorName = (error: unknown) => (error instanceof Error ? error.name : "UnknownError");

/**
 * DescribeExecution and GetExecutionHistory of a run's execution (`${goalId}-${runId}`). History
 * events carry their details without execution data (inputs and outputs of states): the console
 * shows the run's shape, the goal's own events show what happened in it.
 */
export function sfnRunHistory(client: SFNClient): RunHistory {
  return {
    describe: async (run) => {
      const executionArn = executionArnOf(run);
      try {
        const described = await client.send(new DescribeExecutionCommand({ executionArn }));
        return {
          executionArn,
          status: described.status ?? "UNKNOWN",
          startDate: (described.startDate ?? new Date(0)).toISOString(),
          ...(described.stopDate ? { stopDate: described.stopDate.toISOString() } : {}),
          ...(described.error ? { error: described.error } : {}),
          ...(described.cause ? { cause: described.cause.slice(0, 2000) } : {}),
          ...(described.redriveCount === undefined ? {} : { redriveCount: described.redriveCount }),
        };
      } catch (error) {
        if (errorName(error) === "ExecutionDoesNotExist") return undefined;
        throw new RunHistoryError(`Step Functions did not describe ${executionArn}: ${errorName(error)}`, {
          cause: error,
        });
      }
    },
    history: async (run, page) => {
      const executionArn = executionArnOf(run);
      try {
        const answer = await client.send(
          new GetExecutionHistoryCommand({
            executionArn,
            includeExecutionData: false,
            maxResults: page.maxResults ?? 100,
            ...(page.nextToken === undefined ? {} : { nextToken: page.nextToken }),
          }),
        );
        const events = (answer.events ?? []).map((event) => {
          const { id, previousEventId, timestamp, type, ...rest } = event;
          const detailKey = Object.keys(rest).find((key) => key.endsWith("EventDetails"));
          const details = detailKey === undefined ? undefined : Reflect.get(rest, detailKey);
          return {
            id: id ?? 0,
            ...(previousEventId === undefined ? {} : { previousEventId }),
            timestamp: (timestamp ?? new Date(0)).toISOString(),
            type: type ?? "Unknown",
            ...(typeof details === "object" && details !== null ? { details } : {}),
          };
        });
        return { events, ...(answer.nextToken ? { nextToken: answer.nextToken } : {}) };
      } catch (error) {
        // A page token Step Functions never issued (or one of another execution) is the caller's bad input.
        if (errorName(error) === "InvalidToken") {
          const message = "is not a page token of this run's history";
          throw new ValidationError(
            `Invalid query: nextToken: ${message}`,
            [{ path: "nextToken", message }],
            {
              cause: error,
            },
          );
        }
        throw new RunHistoryError(
          `Step Functions did not read the history of ${executionArn}: ${errorName(error)}`,
          {
            cause: error,
          },
        );
      }
    },
  };
}
