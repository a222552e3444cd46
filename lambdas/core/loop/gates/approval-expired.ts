import { resumeFromWait } from "../../goal/goal-lifecycle";
import { terminateOnLimitTimeout } from "../../goal/limits";
import { HUMAN_INPUT_DETAIL_TYPES } from "../../human/human-input-events";
import type { Clock } from "../../ports/clock";
import { ApprovalAlreadyDecidedError, type GoalStore } from "../../ports/goal-store";
import { isRunningIn, nextForStatus, type RunPosition, type StepResult } from "../step-result";
import { chain, readGoal, updateGoal } from "../update-goal";
import { decideGate, gateOf, nextAfterGate } from "./action-gate";
import { pauseOnCheckApprovalTimeout, pendingCheckApproval } from "./check-approval";
import { pauseOnContractTimeout, pendingContractProposal } from "./contract-confirmation";
import { terminateOnDecisionTimeout, waitsOnStepDecision } from "./step-decision";

export interface ApprovalExpiredPorts {
  readonly goals: GoalStore;
  readonly now: Clock;
}

/**
 * ApprovalExpired, after AwaitApproval timed out (`States.Timeout`): the approval becomes `expired`
 * and the goal's wait ends without a human. A limit decision nobody made terminates the goal
 * (`terminateOnLimitTimeout`); a success check nobody signed off pauses it (a resume asks again); a gated tool call is answered `ApprovalExpired` by Act, which runs the
 * turn's other calls, so the loop goes on without the action.
 */
export async function approvalExpired(ports: ApprovalExpiredPorts, input: RunPosition): Promise<StepResult> {
  const loaded = await readGoal(ports.goals, input.goalId);
  const waiting = loaded.record.status === "waiting" ? loaded.record.waitingFor : null;
  if (waiting) {
    await ports.goals.decideApproval(waiting.approvalId, { status: "expired" }).catch((error: unknown) => {
      // Decided at the last moment: the wait is over all the same, and the decision came too late.
      if (!(error instanceof Error && error.name === ApprovalAlreadyDecidedError.name)) throw error;
    });
  }
  const now = ports.now();
  const { record } = await updateGoal(ports.goals, loaded, (current) => {
    if (current.status !== "waiting" || current.runId !== input.runId || !current.waitingFor)
      return undefined;
    if (waitsOnStepDecision(current)) return terminateOnDecisionTimeout(current, now);
    const event = {
      eventType: HUMAN_INPUT_DETAIL_TYPES.approvalDecided,
      approvalId: current.waitingFor.approvalId,
    };
    if (pendingContractProposal(current)?.approvalId === current.waitingFor.approvalId) {
      return chain(
        current,
        (next) => resumeFromWait(next, event, "verify", now),
        (next) => pauseOnContractTimeout(next, now),
      );
    }
    if (pendingCheckApproval(current)?.approvalId === current.waitingFor.approvalId) {
      return chain(
        current,
        (next) => resumeFromWait(next, event, "verify", now),
        (next) => pauseOnCheckApprovalTimeout(next, now),
      );
    }
    if (current.waitingFor.kind === "decision") return terminateOnLimitTimeout(current, now);
    return chain(
      current,
      (next) => resumeFromWait(next, event, nextAfterGate(next.actionGate), now),
      (next) => decideGate(next, "expired", {}, now),
    );
  });
  const position = { goalId: input.goalId, runId: input.runId, iteration: record.runIteration };
  if (!isRunningIn(record, input.runId)) {
    return { ...position, next: record.runId === input.runId ? nextForStatus(record.status) : "stop" };
  }
  // Running: the gate was answered (now, or by a decision whose token arrived too late) → Act obeys it.
  const gate = gateOf(record, position);
  return { ...position, next: gate ? nextAfterGate(gate) : "verify" };
}
