import { ValidationError } from "../goal/errors";
import type { GoalRecord } from "../goal/goal-record";
import { stepById } from "../goal/plan";
import type { GoalHistory, StepState } from "../ports/goal-history";
import type { GoalStore } from "../ports/goal-store";

export interface ForkPointPorts {
  readonly goals: Pick<GoalStore, "getGoal">;
  readonly history: Pick<GoalHistory, "getStepState">;
}

/**
 * A step a goal can be forked (or replayed) from: its recorded state, and the goal whose history
 * holds it (`owner`): the goal asked about, or, for a step a fork inherited, the goal that made it.
 */
export interface ForkPoint {
  readonly owner: GoalRecord;
  readonly state: StepState;
}

/** A bad `field` (`atStep`, `toStep`): a 400 naming it. */
export function badStep(field: string, message: string): ValidationError {
  return new ValidationError(`Invalid ${field}: ${message}`, [{ path: field, message }]);
}

/**
 * The state after `step` of `goal`, or a ValidationError naming `field` that says why there is none:
 * the step has not been counted, it was counted before goal-loops recorded step states, a newer
 * goal-loops recorded it in a format this one cannot read, or it is a step the goal shares with the
 * goal it was forked from and that goal is gone. A step a fork inherited is read from the goal
 * that made it: a fork's own history starts at the step it was forked at.
 */
export async function stepStateOf(
  ports: ForkPointPorts,
  goal: GoalRecord,
  step: number,
  field = "atStep",
): Promise<ForkPoint> {
  if (step > goal.steps) {
    throw badStep(
      field,
      `step ${step} does not exist: goal ${goal.goalId} has counted ${goal.steps} step${goal.steps === 1 ? "" : "s"}`,
    );
  }
  const stored = await ports.history.getStepState(goal.goalId, step);
  if (stored?.kind === "newer_format") {
    throw badStep(
      field,
      `step ${step} was recorded by a newer goal-loops (state format ${stored.format}) than this one can fork from`,
    );
  }
  if (stored) return { owner: goal, state: stored.state };
  const origin = goal.spec.forkedFrom;
  if (origin === undefined || step > origin.step) {
    throw badStep(
      field,
      `step ${step} of goal ${goal.goalId} has no recorded state: it was counted before goal-loops recorded them`,
    );
  }
  const source = await ports.goals.getGoal(origin.goalId);
  if (source === undefined || source.record.tenantId !== goal.tenantId) {
    throw badStep(
      field,
      `step ${step} of fork ${goal.goalId} is shared with goal ${origin.goalId}, which is gone; only the fork's own steps (after ${origin.step}) can be forked`,
    );
  }
  return stepStateOf(ports, source.record, step, field);
}

/**
 * The state after `atStep`, checked as a fork's starting point. Beyond `stepStateOf`: a
 * Plan-and-Execute step inside a batch whose other steps were still to act on is refused, since
 * their turns were made (and paid for) before the step and belong to that run; so is a step after
 * which a sub-goal the goal started was still running, since that sub-goal reports to its parent.
 */
export async function forkPointOf(
  ports: ForkPointPorts,
  goal: GoalRecord,
  atStep: number,
): Promise<ForkPoint> {
  const point = await stepStateOf(ports, goal, atStep);
  const left = unfinishedBatchSteps(point.state.record);
  if (left.length > 0) {
    throw badStep(
      "atStep",
      `step ${atStep} is inside a batch of plan steps that did not finish (${left.join(", ")} still to act on): fork at a step before the batch started or at the one that finished it`,
    );
  }
  const running = (point.state.record.subgoals ?? []).filter((entry) => entry.status === "running");
  if (running.length > 0) {
    throw badStep(
      "atStep",
      `after step ${atStep} sub-goal ${running.map((entry) => entry.goalId ?? entry.toolUseId).join(", ")} was still running: it reports to the source, never to a fork; fork at a step where it had ended`,
    );
  }
  return point;
}

/** The steps of the record's batch of plan steps still pending (see patterns/plan-execute/batch.ts). */
export function unfinishedBatchSteps(record: GoalRecord): string[] {
  const state = record.planState;
  const batch = state?.batch;
  if (!state || !batch || batch.version !== state.version) return [];
  return batch.steps
    .filter((entry) => stepById(state, entry.stepId)?.status === "pending")
    .map((entry) => entry.stepId);
}
