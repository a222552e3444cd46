import type { GoalRecord, GoalStatus } from "../goal/goal-record";

/**
 * What each step hands the state machine (`$.next` drives the `NextAction` Choice):
 * - `verify`: go on to the pattern's verify step (a step that acted, or LoadGoal, answers it);
 * - `act`: an acting turn is checkpointed and its gate decided: Act runs its tool calls (a step that
 *   makes an ungated turn runs them itself and answers `verify`);
 * - `approval`: some of those calls need a human approval first (AwaitApproval);
 * - `limit_decision`: a limit is reached, a human extends it or terminates the goal (AwaitApproval);
 * - `decision`: a step or tool call failed in a way no retry fixes, a human decides (AwaitApproval);
 * - `subgoal`: the turn called `spawn_subgoal`: AwaitSubgoals starts the sub-goals and waits for
 *   them to end, then Act answers the calls with their outcomes;
 * - `completed` / `paused` / `terminated`: the goal reached that status, the run ends;
 * - `continue_as_new`: start a new run of the goal (ContinueAsNew);
 * - `continued`: the new run was started (ContinueAsNew's answer);
 * - `stop`: nothing to do (the goal is not running, or another run owns it);
 * - `wait_for_capacity`: the step's model call has no capacity now: the run waits `waitSeconds` in
 *   the WaitForCapacity Wait state, then goes to `resume` (the step that asked runs again).
 * plan_execute adds `plan` (make or repair the plan), `replan_cooldown` (wait before replanning),
 * `execute` (the executor's turn for the next plan step), `execute_batch` (the executor's turns for
 * every ready step at once, then `execute`); reflexion adds `reflect` and `attempt`.
 */
export const NEXT_STEPS = [
  "verify",
  "plan",
  "replan_cooldown",
  "execute",
  "execute_batch",
  "decision",
  "reflect",
  "attempt",
  "act",
  "approval",
  "subgoal",
  "limit_decision",
  "completed",
  "paused",
  "terminated",
  "continue_as_new",
  "continued",
  "stop",
  "wait_for_capacity",
] as const;
export type NextStep = (typeof NEXT_STEPS)[number];

/** Where a run is: the whole payload passed between states (all state lives in the goal store). */
export interface RunPosition {
  readonly goalId: string;
  readonly runId: string;
  /** The iteration of the run the step works on (the reason checkpoint's key for Act). */
  readonly iteration: number;
}

export interface StepResult extends RunPosition {
  readonly next: NextStep;
  /** With `wait_for_capacity`: the route back to the step that waits. */
  readonly resume?: NextStep;
  /** With `wait_for_capacity`: how long the WaitForCapacity state waits (SecondsPath). */
  readonly waitSeconds?: number;
}

/** The answer for a goal that is no longer running (a retried step finds what the first did). */
export function nextForStatus(status: GoalStatus): NextStep {
  switch (status) {
    case "completed":
    case "paused":
    case "terminated":
      return status;
    default:
      return "stop";
  }
}

/** Whether the goal is running under `runId`: only then may a step of that run change it. */
export function isRunningIn(record: GoalRecord, runId: string): boolean {
  return record.status === "running" && record.runId === runId;
}

/** The answer of a step whose goal no longer runs in its run (shared with the other patterns' steps). */
export function stopped(record: GoalRecord, position: RunPosition): StepResult {
  const next = record.runId === position.runId ? nextForStatus(record.status) : "stop";
  return { ...position, iteration: record.runIteration, next };
}
