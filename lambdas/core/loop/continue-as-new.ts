import { continueAsNew } from "../goal/goal-lifecycle";
import { liveAliasArn } from "../goal/runs-on";
import type { Clock } from "../ports/clock";
import type { GoalStore } from "../ports/goal-store";
import type { IdSource } from "./loop-deps";
import type { RunPosition } from "./step-result";
import { readGoal, updateGoal } from "./update-goal";

export interface ContinueAsNewPorts {
  readonly goals: GoalStore;
  readonly ids: IdSource;
  readonly now: Clock;
}

/** The run to start: the execution name is `${goalId}-${runId}` (StartExecution is idempotent on it). */
export interface NewRun {
  readonly goalId: string;
  readonly runId: string;
  readonly executionName: string;
  /**
   * Where it starts: the state machine version the goal runs on, so a continued goal keeps its
   * version (continue-as-new only keeps the history short; it is no boundary a deploy may cross).
   * A goal from before versions goes to its state machine's live alias, as each of its runs does.
   */
  readonly stateMachineArn: string;
}

export function executionName(goalId: string, runId: string): string {
  return `${goalId}-${runId}`;
}

/**
 * ContinueAsNew: hands the goal to a new run (new runId, runIteration 0; steps, usage, evidence and
 * the event log carry on) and returns the run for the handler to start. A retry after the commit finds
 * the goal already handed over from this run and returns the same run, so starting it again is safe.
 * Undefined when this run no longer owns the goal (nothing to start).
 */
export async function continueAsNewStep(
  ports: ContinueAsNewPorts,
  /** `stateMachineArn`: the running execution's state machine (`$$.StateMachine.Id`). */
  input: Pick<RunPosition, "goalId" | "runId"> & { readonly stateMachineArn: string },
): Promise<NewRun | undefined> {
  const { goalId, runId } = input;
  const newRunId = ports.ids.nextRunId(runId);
  const loaded = await readGoal(ports.goals, goalId);
  const now = ports.now();
  const { record } = await updateGoal(ports.goals, loaded, (current) =>
    current.status === "running" && current.runId === runId
      ? continueAsNew(current, { newRunId, now })
      : undefined,
  );
  const handedOver = record.runId === newRunId && record.previousRunId === runId;
  if (!handedOver) return undefined;
  return {
    goalId,
    runId: newRunId,
    executionName: executionName(goalId, newRunId),
    stateMachineArn: record.runsOn?.stateMachineVersionArn ?? liveAliasArn(input.stateMachineArn),
  };
}
