import type { StateMachine } from "aws-local-stepfunctions";
import type { JsonObject, JsonValue } from "../shared/cloud-assembly-model";

/**
 * Step Functions caps an execution's history at 25,000 events (FACTS): the local history keeps that
 * many and no more, so a run that would overflow it on AWS shows a full history here too.
 */
export const MAX_HISTORY_EVENTS = 25_000;

/**
 * One event of `GetExecutionHistory`, in the wire shape of the Step Functions API: `id`,
 * `previousEventId`, `timestamp`, `type` and the type's `…EventDetails` object.
 */
export interface HistoryEvent {
  readonly id: number;
  readonly previousEventId: number;
  readonly timestamp: Date;
  readonly type: string;
  readonly details: { readonly key: string; readonly value: JsonObject } | undefined;
}

/** One event of the engine's event log (the package does not export its type). */
export type EngineEvent =
  ReturnType<StateMachine["run"]>["eventLogs"] extends AsyncGenerator<infer E> ? E : never;

/** The engine's state types as the first word of Step Functions' state event types (`TaskStateEntered`). */
const STATE_TYPES: Readonly<Record<string, string>> = {
  Task: "Task",
  Choice: "Choice",
  Pass: "Pass",
  Wait: "Wait",
  Succeed: "Succeed",
  Fail: "Fail",
  Parallel: "Parallel",
  Map: "Map",
};

/** Step Functions reports inputs and outputs as JSON text, with whether they were truncated. */
function json(value: JsonValue | undefined): string {
  return JSON.stringify(value ?? null);
}

function causeText(cause: unknown): string {
  if (typeof cause === "string") return cause;
  if (cause instanceof Error) return cause.message;
  return JSON.stringify(cause) ?? "";
}

/**
 * The Step Functions history events one engine event stands for, with the real event types and
 * detail objects (`TaskStateEntered` + `stateEnteredEventDetails`, `ExecutionFailed` +
 * `executionFailedEventDetails` …). Engine events Step Functions has no history event for (a
 * Parallel branch starting, a Catch matching) stand for none. `roleArn` is the execution's role.
 */
export function historyEventsOf(
  event: EngineEvent,
  roleArn: string,
): { type: string; details?: { key: string; value: JsonObject } }[] {
  switch (event.type) {
    case "ExecutionStarted":
      return [
        {
          type: "ExecutionStarted",
          details: {
            key: "executionStartedEventDetails",
            value: { input: json(event.input), inputDetails: { truncated: false }, roleArn },
          },
        },
      ];
    case "ExecutionSucceeded":
      return [
        {
          type: "ExecutionSucceeded",
          details: {
            key: "executionSucceededEventDetails",
            value: { output: json(event.output), outputDetails: { truncated: false } },
          },
        },
      ];
    case "ExecutionFailed":
      return [
        {
          type: "ExecutionFailed",
          details: {
            key: "executionFailedEventDetails",
            value: { error: event.Error, cause: causeText(event.Cause) },
          },
        },
      ];
    case "ExecutionAborted":
      return [{ type: "ExecutionAborted", details: { key: "executionAbortedEventDetails", value: {} } }];
    case "ExecutionTimeout":
      return [
        {
          type: "ExecutionTimedOut",
          details: { key: "executionTimedOutEventDetails", value: { error: "States.Timeout" } },
        },
      ];
    case "StateEntered": {
      const prefix = STATE_TYPES[event.state.type] ?? "Pass";
      return [
        {
          type: `${prefix}StateEntered`,
          details: {
            key: "stateEnteredEventDetails",
            value: {
              name: event.state.name,
              input: json(event.state.input),
              inputDetails: { truncated: false },
            },
          },
        },
      ];
    }
    case "StateExited": {
      const prefix = STATE_TYPES[event.state.type] ?? "Pass";
      return [
        {
          type: `${prefix}StateExited`,
          details: {
            key: "stateExitedEventDetails",
            value: {
              name: event.state.name,
              output: json(event.state.output),
              outputDetails: { truncated: false },
            },
          },
        },
      ];
    }
    case "StateFailed":
      // A Task's failure is `TaskFailed` in Step Functions; other states fail the execution itself.
      if (event.state.type !== "Task") return [];
      return [
        {
          type: "TaskFailed",
          details: {
            key: "taskFailedEventDetails",
            value: {
              resourceType: "lambda",
              resource: "invoke",
              error: event.Error,
              cause: causeText(event.Cause),
            },
          },
        },
      ];
    case "MapIterationStarted":
    case "MapIterationSucceeded":
    case "MapIterationFailed": {
      const key = `${event.type.charAt(0).toLowerCase()}${event.type.slice(1)}EventDetails`;
      return [
        { type: event.type, details: { key, value: { name: event.parentState.name, index: event.index } } },
      ];
    }
    default:
      return [];
  }
}
