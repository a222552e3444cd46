import { GoalStatusError } from "../goal/errors";
import type { GoalRecord } from "../goal/goal-record";
import type { Limits } from "../goal/goal-spec";
import { isFinal } from "../goal/goal-status";
import { extendLimits, type LimitsPatch } from "../goal/limits";
import { readGoal, updateGoal } from "../loop/update-goal";
import type { DeadlineSchedule } from "../ports/deadline-schedule";
import type { GoalStore } from "../ports/goal-store";
import type { HumanInputPublisher } from "../ports/human-input-publisher";
import { decideApprovalFromDoor } from "./decide-approval";
import type { HumanInputChannel } from "./human-input-events";

export interface RaiseLimitsPorts {
  readonly goals: GoalStore;
  readonly publisher: HumanInputPublisher;
  readonly now: () => Date;
  /** Moves the goal's deadline schedule when the deadline changes (absent: none is kept). */
  readonly deadlines?: DeadlineSchedule;
}

export interface RaiseLimitsInput {
  readonly goalId: string;
  readonly patch: LimitsPatch;
  readonly by: string;
  readonly channel: HumanInputChannel;
}

/**
 * `POST /goals/{goalId}/limits` (and `goal-loops limits`): a human changes a goal's limits without
 * waiting to be asked. A goal waiting on a limit decision gets it answered (approved, the patch as
 * the human's own limits: the resume handler extends them and wakes the run); any other open goal
 * gets the new limits at once, and its loop reads them at its next step. Answers the limits the goal
 * has (or is about to have). A patch that would not clear the limit a goal waits on is a
 * ValidationError naming that limit; a final goal is a GoalStatusError.
 */
export async function raiseLimits(ports: RaiseLimitsPorts, input: RaiseLimitsInput): Promise<Limits> {
  const loaded = await readGoal(ports.goals, input.goalId);
  const now = ports.now();
  const approvalId = waitingLimitDecision(loaded.record);
  if (approvalId !== undefined) {
    // Checked here first (a 400 to the human), applied by the resume handler on the decision.
    const extended = extendLimits(loaded.record, input.patch, input.by, now).record.spec.limits;
    const decided = await decideApprovalFromDoor(ports, {
      approvalId,
      decision: "approve",
      decidedBy: input.by,
      comment: JSON.stringify(input.patch),
      channel: input.channel,
    });
    if (decided.outcome === "decided") return extended;
    // Somebody answered the decision meanwhile: the goal no longer waits on it; change the limits.
  }
  const { record } = await updateGoal(ports.goals, loaded, (current) => {
    if (isFinal(current.status)) {
      throw new GoalStatusError({
        goalId: current.goalId,
        status: current.status,
        operation: "raiseLimits",
        allowed: ["running", "waiting", "paused", "failed"],
      });
    }
    return extendLimits(current, input.patch, input.by, now);
  });
  const deadline = record.spec.limits.deadline;
  if (deadline !== undefined && deadline !== loaded.record.spec.limits.deadline) {
    await ports.deadlines?.set(record.goalId, deadline);
  }
  return record.spec.limits;
}

/** The approval of the limit decision the goal waits on, if it waits on one. */
function waitingLimitDecision(record: GoalRecord): string | undefined {
  const waits = record.status === "waiting" && record.waitingFor?.kind === "decision";
  return waits && record.stopReason?.kind === "limit" ? record.waitingFor?.approvalId : undefined;
}
