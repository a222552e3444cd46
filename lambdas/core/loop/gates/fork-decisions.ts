import type { ForkDecision } from "../../goal/fork";
import { type GoalChange, settle } from "../../goal/goal-change";
import type { GoalRecord } from "../../goal/goal-record";
import type { Approval, GoalStore } from "../../ports/goal-store";

/**
 * The decision a fork's request gave in advance for an approval of this very action (the same kind
 * and fingerprint: the same tool calls with the same input, the same limit), not used yet; see
 * ForkDecisionSchema. A goal that is no fork has none.
 */
export function forkDecisionFor(record: GoalRecord, action: Approval["action"]): ForkDecision | undefined {
  return record.fork?.decisions.find(
    (decision) =>
      decision.usedBy === undefined &&
      decision.kind === action.kind &&
      decision.fingerprint === action.fingerprint,
  );
}

/** Marks the decision used by `approvalId`, in the change that parks the goal on it: it decides one approval. */
export function useForkDecision(record: GoalRecord, decision: ForkDecision, approvalId: string): GoalChange {
  const fork = record.fork;
  if (fork === undefined) return settle(record, []);
  const decisions = fork.decisions.map((entry) =>
    entry.sourceApprovalId === decision.sourceApprovalId ? { ...entry, usedBy: approvalId } : entry,
  );
  return settle({ ...record, fork: { ...fork, decisions } }, []);
}

/**
 * Decides the fork's approval as its request said, once the goal waits on it: the decision then
 * reaches the wait as any decision taken before a wait parked does (`deliverTakenDecision`). The
 * approval records who decided (the fork's caller) and why (the source's approval it replaces).
 */
export async function decideInAdvance(
  goals: Pick<GoalStore, "decideApproval">,
  approvalId: string,
  decision: ForkDecision,
  now: Date,
): Promise<void> {
  const why = `decided in advance by the fork request, for approval ${decision.sourceApprovalId} of the goal it was forked from`;
  await goals.decideApproval(approvalId, {
    status: decision.decision === "approve" ? "approved" : "rejected",
    decision: {
      decision: decision.decision,
      decidedBy: decision.decidedBy,
      comment: (decision.comment === undefined ? why : `${decision.comment} (${why})`).slice(0, 2000),
      decidedAt: now.toISOString(),
    },
  });
}
