import type { GoalChange } from "../../goal/goal-change";
import { waitFor } from "../../goal/goal-lifecycle";
import type { GoalRecord, WaitingFor } from "../../goal/goal-record";
import { HUMAN_INPUT_DETAIL_TYPES } from "../../human/human-input-events";

/**
 * Parks a running goal on approval `waiting.approvalId` until that approval's `Approval Decided`
 * arrives for the goal's current revision: the one resume condition every gate waits on.
 */
export function awaitDecision(
  record: GoalRecord,
  waiting: Pick<WaitingFor, "kind" | "reason"> & { readonly approvalId: string },
  now: Date,
): GoalChange {
  return waitFor(
    record,
    waiting,
    {
      eventType: HUMAN_INPUT_DETAIL_TYPES.approvalDecided,
      approvalId: waiting.approvalId,
      revision: record.revision,
    },
    now,
  );
}
