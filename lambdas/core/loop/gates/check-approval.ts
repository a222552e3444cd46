import { unsatisfiedCheckIds } from "../../goal/evidence/check-evidence";
import type { Evidence } from "../../goal/evidence/evidence";
import { type GoalChange, goalEvent, settle } from "../../goal/goal-change";
import { pause } from "../../goal/goal-lifecycle";
import type { CheckApproval, GoalRecord } from "../../goal/goal-record";
import type { SuccessCheck } from "../../goal/goal-spec";
import { clip } from "../../goal/text";
import { awaitDecision } from "./await-decision";

/** The approval action kind of an `approval` success check (`tool`, `plan`, `limit`, `decision` are the others). */
export const CHECK_APPROVAL_KIND = "check";

type ApprovalCheck = SuccessCheck & { verify: { kind: "approval"; prompt: string } };

function isApprovalCheck(check: SuccessCheck): check is ApprovalCheck {
  return check.verify.kind === "approval";
}

/** The check a human is being asked to sign off, if any. */
export function pendingCheckApproval(record: GoalRecord): CheckApproval | undefined {
  return record.checkApproval?.outcome === "pending" ? record.checkApproval : undefined;
}

/** The question the doors show: the check's prompt, and what each answer does. */
export function checkApprovalSummary(record: GoalRecord, checkId: string): string {
  const check = record.spec.successChecks.find((candidate) => candidate.id === checkId);
  const prompt = check && isApprovalCheck(check) ? check.verify.prompt : (check?.description ?? checkId);
  return clip(
    `success check ${checkId}: ${prompt} (approve to accept it as met, reject with a comment to send the agent back to work)`,
    500,
  );
}

/**
 * When an `approval` success check is the only thing left, the goal asks a human to sign it off,
 * through the same doors as every approval (DESIGN §3): once every other check has evidence (so the
 * human reviews finished work), or, for a goal whose only checks are approvals, once the model says
 * it is done. After a rejection it asks again only when new work was counted since.
 */
export function askForCheckApproval(record: GoalRecord, now: Date): GoalChange | undefined {
  if (record.status !== "running" || pendingCheckApproval(record) || record.contractProposal)
    return undefined;
  if (record.actionGate?.outcome === "pending") return undefined;
  const open = new Set(unsatisfiedCheckIds(record));
  const checks = record.spec.successChecks;
  const waiting = checks.filter(isApprovalCheck).find((check) => open.has(check.id));
  if (!waiting) return undefined;
  const othersMet = checks.every((check) => isApprovalCheck(check) || !open.has(check.id));
  const onlyApprovals = checks.every(isApprovalCheck);
  if (!othersMet || (onlyApprovals && record.lastCycle?.claimedDone !== true)) return undefined;
  const last = record.checkApproval;
  if (last?.checkId === waiting.id && last.outcome === "rejected" && record.steps <= last.atStep)
    return undefined;
  const checkApproval: CheckApproval = { checkId: waiting.id, outcome: "pending", atStep: record.steps };
  const next: GoalRecord = { ...record, checkApproval, updatedAt: now.toISOString() };
  return settle(next, [
    goalEvent(next, "check.approval_needed", now, { checkId: waiting.id, prompt: waiting.verify.prompt }),
  ]);
}

/** Parks the goal until a human signs the check off (the approval request announces it). */
export function awaitCheckApproval(record: GoalRecord, approvalId: string, now: Date): GoalChange {
  const pending = pendingCheckApproval(record);
  if (!pending) return settle(record, []);
  const next: GoalRecord = { ...record, checkApproval: { ...pending, approvalId } };
  return awaitDecision(
    next,
    { kind: "approval", approvalId, reason: checkApprovalSummary(record, pending.checkId) },
    now,
  );
}

/**
 * A human's answer on the check. Approved: the approval is the check's evidence (strong), which is
 * progress. Rejected: the check stays open, the comment goes to the model in every prompt until the
 * check is asked again; a human's answer is new information, so it is progress too.
 */
export function decideCheckApproval(
  record: GoalRecord,
  answer: { decision: "approve" | "reject"; decidedBy: string; approvalId: string; comment?: string },
  now: Date,
): GoalChange {
  const pending = pendingCheckApproval(record);
  if (!pending || pending.approvalId !== answer.approvalId) return settle(record, []);
  const at = now.toISOString();
  const decided: CheckApproval = {
    ...pending,
    outcome: answer.decision === "approve" ? "approved" : "rejected",
    decidedBy: answer.decidedBy,
    ...(answer.comment === undefined ? {} : { comment: answer.comment.slice(0, 2000) }),
  };
  const evidence: Evidence | undefined =
    answer.decision === "approve"
      ? {
          checkId: pending.checkId,
          kind: "approval",
          strength: "strong",
          approvalId: answer.approvalId,
          decidedBy: answer.decidedBy,
          runId: record.runId,
          iteration: record.runIteration,
          at,
        }
      : undefined;
  const next: GoalRecord = {
    ...record,
    checkApproval: decided,
    evidence: evidence
      ? [...record.evidence.filter((item) => item.checkId !== pending.checkId), evidence]
      : record.evidence,
    noProgressCycles: 0,
    updatedAt: at,
  };
  const reason = `check ${pending.checkId} ${answer.decision === "approve" ? "approved" : "rejected"} by ${answer.decidedBy}`;
  return settle(next, [
    ...(evidence ? [goalEvent(next, "evidence.recorded", now, { ...evidence })] : []),
    goalEvent(next, "progress", now, {
      iteration: record.runIteration,
      reasons: [reason],
      noProgressCycles: 0,
    }),
  ]);
}

/** Nobody answered before the wait timed out: the goal pauses; after a resume it asks again. */
export function pauseOnCheckApprovalTimeout(record: GoalRecord, now: Date): GoalChange {
  const { checkApproval: pending, ...cleared } = record;
  return pause(
    cleared,
    {
      kind: "policy",
      detail: "check_approval_expired",
      message: `nobody signed off success check ${pending?.checkId ?? "?"} before the approval timed out; resume to ask again`,
    },
    now,
  );
}
