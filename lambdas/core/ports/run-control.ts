/**
 * Starting and stopping a goal's runs (Step Functions executions named `${goalId}-${runId}`). The
 * adapters are lambdas/adapters/sfn-run-starter.ts and sfn-run-stopper.ts; the core only sees these.
 */

/** One run of a goal on a state machine. */
export interface RunRef {
  readonly stateMachineArn: string;
  readonly goalId: string;
  readonly runId: string;
}

/** Starts a run; resolves when it is started or already was. */
export type StartRun = (run: RunRef) => Promise<void>;

/** Stops a run; resolves when it is stopped, had finished, or never existed. */
export type StopRun = (run: RunRef & { readonly cause: string }) => Promise<void>;
