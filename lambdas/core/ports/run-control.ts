import type { Pattern } from "../goal/goal-spec";
import type { VersionTarget } from "../goal/runs-on";

/**
 * Starting and stopping a goal's runs (Step Functions executions named `${goalId}-${runId}`). The
 * adapters are lambdas/adapters/step-functions/sfn-run-starter.ts and sfn-run-stopper.ts; the core only sees these.
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

/**
 * Whether a run's execution is still going (Step Functions `RUNNING`): false when it ended, however
 * it ended, or never existed. Only a live run can still act on what the goal record says.
 */
export type RunIsLive = (run: RunRef) => Promise<boolean>;

/**
 * Step Functions redrive of a failed run's execution (`RedriveExecution`): it goes on from the state
 * it failed in, with the same input and ARN, within 14 days of its end.
 */
export interface RedriveRun {
  /** Whether the run's execution can be redriven now (`redriveStatus` REDRIVABLE). */
  isRedrivable(run: RunRef): Promise<boolean>;
  /** Redrives it; false when Step Functions says it is not redrivable (any more). */
  redrive(run: RunRef): Promise<boolean>;
}

/**
 * The deployed versions of each pattern's state machine: Step Functions versions, one per deploy,
 * and the `live` alias the last deploy (or a rollback) points at one of them. The adapter is
 * lambdas/adapters/step-functions/sfn-version-directory.ts.
 */
export interface VersionDirectory {
  /** The version the pattern's live alias names now: where a new goal starts. */
  live(pattern: Pattern): Promise<VersionTarget>;
  /**
   * The pattern's state machine version of the deployed version `version` (a sub-goal runs on its
   * parent's); undefined when that deploy published none of the pattern, or it was removed.
   */
  ofVersion(pattern: Pattern, version: string): Promise<VersionTarget | undefined>;
}
