import type { JsonValue } from "./cloud-assembly-model";

export type ExecutionStatus = "RUNNING" | "SUCCEEDED" | "FAILED" | "ABORTED" | "TIMED_OUT";

/** One line of an execution's history, as the engine's event log reports it. */
export interface ExecutionEvent {
  readonly type: string;
  readonly timestamp: number;
  readonly stateName?: string;
  readonly error?: string;
}

const RECENT_EVENTS = 200;

/** A local Step Functions execution: status, result and counters, updated as its events arrive. */
export class Execution {
  status: ExecutionStatus = "RUNNING";
  readonly startDate = new Date();
  stopDate: Date | undefined;
  output: JsonValue | undefined;
  error: string | undefined;
  cause: string | undefined;
  /** StateEntered events: the state transitions Step Functions bills (retries add `retries`). */
  transitions = 0;
  retries = 0;
  readonly eventCounts: Record<string, number> = {};
  /** The last events, for diagnostics; the full log is drained, not kept. */
  readonly recentEvents: ExecutionEvent[] = [];
  /** Settles when the execution has stopped and its event log is drained. */
  done: Promise<void> = Promise.resolve();

  constructor(
    readonly executionArn: string,
    readonly stateMachineArn: string,
    readonly name: string,
    readonly input: JsonValue,
    readonly inputText: string,
  ) {}

  isRunning(): boolean {
    return this.status === "RUNNING";
  }

  record(event: ExecutionEvent): void {
    this.eventCounts[event.type] = (this.eventCounts[event.type] ?? 0) + 1;
    if (event.type === "StateEntered") this.transitions += 1;
    if (event.type === "StateRetried") this.retries += 1;
    this.recentEvents.push(event);
    if (this.recentEvents.length > RECENT_EVENTS) this.recentEvents.shift();
  }

  finish(
    status: Exclude<ExecutionStatus, "RUNNING">,
    result: { output?: JsonValue; error?: string; cause?: string } = {},
  ): void {
    if (this.status !== "RUNNING") return;
    this.status = status;
    this.stopDate = new Date();
    this.output = result.output;
    this.error = result.error;
    this.cause = result.cause;
  }
}
