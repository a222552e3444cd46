import type { JsonObject, JsonValue } from "../shared/cloud-assembly-model";
import { type HistoryEvent, MAX_HISTORY_EVENTS } from "./execution-history";

export type ExecutionStatus = "RUNNING" | "SUCCEEDED" | "FAILED" | "ABORTED" | "TIMED_OUT";

/** One line of an execution's history, as the engine's event log reports it. */
export interface ExecutionEvent {
  readonly type: string;
  readonly timestamp: number;
  readonly stateName?: string;
  readonly error?: string;
}

const RECENT_EVENTS = 200;

type HistoryEntry = Omit<HistoryEvent, "id" | "previousEventId">;

/** The history event that ends an execution of each final status. */
const TERMINAL_EVENTS = {
  SUCCEEDED: "ExecutionSucceeded",
  FAILED: "ExecutionFailed",
  ABORTED: "ExecutionAborted",
  TIMED_OUT: "ExecutionTimedOut",
} as const;

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
  /** The history (`GetExecutionHistory`) before the final event, which `finish` sets apart. */
  private readonly historyEntries: HistoryEntry[] = [];
  private terminalEntry: HistoryEntry | undefined;
  /** Settles when the execution has stopped and its event log is drained. */
  done: Promise<void> = Promise.resolve();

  constructor(
    readonly executionArn: string,
    readonly stateMachineArn: string,
    readonly name: string,
    readonly input: JsonValue,
    readonly inputText: string,
    started: { readonly versionArn?: string; readonly aliasArn?: string } = {},
  ) {
    this.versionArn = started.versionArn;
    this.aliasArn = started.aliasArn;
  }

  /** The version it runs (`stateMachineVersionArn`), when it was started on one or through an alias. */
  readonly versionArn: string | undefined;
  /** The alias it was started through (`stateMachineAliasArn`). */
  readonly aliasArn: string | undefined;

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

  /** Appends history events as the engine reports them; terminal ones come from `finish`. */
  recordHistory(
    entries: readonly { type: string; details?: { key: string; value: JsonObject } }[],
    at: Date,
  ) {
    for (const entry of entries) {
      if (Object.values(TERMINAL_EVENTS).some((type) => type === entry.type)) continue;
      if (this.historyEntries.length >= MAX_HISTORY_EVENTS - 1) return;
      this.historyEntries.push({ type: entry.type, timestamp: at, details: entry.details });
    }
  }

  /** The execution's history as `GetExecutionHistory` numbers it, oldest first, the final event last. */
  history(): HistoryEvent[] {
    const entries = this.terminalEntry ? [...this.historyEntries, this.terminalEntry] : this.historyEntries;
    return entries.map((entry, index) => ({ ...entry, id: index + 1, previousEventId: index }));
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
    const type = TERMINAL_EVENTS[status];
    const key = `${type.charAt(0).toLowerCase()}${type.slice(1)}EventDetails`;
    const value: JsonObject =
      status === "SUCCEEDED"
        ? { output: JSON.stringify(result.output ?? null), outputDetails: { truncated: false } }
        : {
            ...(result.error === undefined ? {} : { error: result.error }),
            ...(result.cause === undefined ? {} : { cause: result.cause }),
          };
    this.terminalEntry = { type, timestamp: this.stopDate, details: { key, value } };
  }
}
