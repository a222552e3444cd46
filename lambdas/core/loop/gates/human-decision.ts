import type { GoalRecord } from "../../goal/goal-record";
import { CHECK_APPROVAL_KIND, pendingCheckApproval } from "./check-approval";
import { CONTRACT_KIND, pendingContractProposal } from "./contract-confirmation";
import { pendingStepDecision, STEP_DECISION_KIND } from "./step-decision";

/**
 * What the `decision` route (AwaitApproval with `next: "decision"`) asks a human about, in this
 * order: a step that failed unrecoverably, a new contract to confirm, an `approval` success check
 * to sign off. Undefined when none waits: the loop goes on.
 */
export function humanDecisionKind(
  record: GoalRecord,
): typeof STEP_DECISION_KIND | typeof CONTRACT_KIND | typeof CHECK_APPROVAL_KIND | undefined {
  if (pendingStepDecision(record)) return STEP_DECISION_KIND;
  if (pendingContractProposal(record)) return CONTRACT_KIND;
  if (pendingCheckApproval(record)) return CHECK_APPROVAL_KIND;
  return undefined;
}

/** Whether a human must decide before the loop makes another model call. */
export function needsHumanDecision(record: GoalRecord): boolean {
  return humanDecisionKind(record) !== undefined;
}
