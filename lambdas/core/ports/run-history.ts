import type { RunRef } from "./run-control";

/** A run's execution as Step Functions describes it. */
export interface RunExecution {
  readonly executionArn: string;
  readonly status: string;
  readonly startDate: string;
  readonly stopDate?: string;
  readonly error?: string;
  readonly cause?: string;
  readonly redriveCount?: number;
}

/** One event of a run's execution history (`GetExecutionHistory`), its details as Step Functions gives them. */
export interface RunHistoryEvent {
  readonly id: number;
  readonly previousEventId?: number;
  readonly timestamp: string;
  readonly type: string;
  /** The type's details object (`stateEnteredEventDetails` …), without execution data. */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** Reads a goal's runs from Step Functions: the runs view of the console, as the Step Functions console shows a run. */
export interface RunHistory {
  /** The run's execution, or undefined when it never started (or is gone). */
  describe(run: RunRef): Promise<RunExecution | undefined>;
  /** A page of the run's history, oldest first. */
  history(
    run: RunRef,
    page: { nextToken?: string; maxResults?: number },
  ): Promise<{ events: readonly RunHistoryEvent[]; nextToken?: string }>;
}
