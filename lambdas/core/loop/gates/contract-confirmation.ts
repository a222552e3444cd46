import { type GoalChange, settle } from "../../goal/goal-change";
import { pause } from "../../goal/goal-lifecycle";
import type { ContractProposal, GoalRecord } from "../../goal/goal-record";
import { clip } from "../../goal/text";
import { awaitDecision } from "./await-decision";

/** The approval action kind of a new contract to confirm (`tool`, `plan`, `limit`, `decision`, `check` are the others). */
export const CONTRACT_KIND = "contract";

/** A new contract with checks to confirm, not yet confirmed (see ContractProposalSchema). */
export function pendingContractProposal(record: GoalRecord): ContractProposal | undefined {
  const proposal = record.contractProposal;
  return proposal?.outcome === "pending" && proposal.checks.length > 0 ? proposal : undefined;
}

/** The question the doors show: the new objective's proposed checks, and what each answer does. */
export function contractSummary(record: GoalRecord, proposal: ContractProposal): string {
  const checks = proposal.checks.map((check) => `${check.id} (${check.verify.kind}): ${check.description}`);
  return clip(
    `confirm the new contract of revision ${proposal.revision} ("${record.spec.objective}"): success checks ${checks.join("; ")}. Approve to run on with these checks; reject to keep the goal paused until a revision supplies its own checks`,
    500,
  );
}

/** Parks the goal until a human confirms (or rejects) the proposed contract. */
export function awaitContractConfirmation(record: GoalRecord, approvalId: string, now: Date): GoalChange {
  const proposal = pendingContractProposal(record);
  if (!proposal) return settle(record, []);
  const next: GoalRecord = { ...record, contractProposal: { ...proposal, approvalId } };
  return awaitDecision(
    next,
    { kind: "approval", approvalId, reason: contractSummary(record, proposal) },
    now,
  );
}

/**
 * A running goal whose new objective has no confirmed checks does no work: none were proposed (the
 * reconcile answer had none), or a human rejected them. It pauses, saying how to go on: a revision
 * (redirect, pivot, modify_objective) that supplies `successChecks`, then resume.
 */
export function holdForContract(record: GoalRecord, now: Date): GoalChange | undefined {
  const proposal = record.contractProposal;
  if (record.status !== "running" || !proposal || pendingContractProposal(record)) return undefined;
  const why =
    proposal.outcome === "rejected"
      ? `${proposal.decidedBy ?? "a human"} rejected the success checks proposed for revision ${proposal.revision}${proposal.comment ? ` (${proposal.comment})` : ""}`
      : `the new objective of revision ${proposal.revision} came without success checks and none could be proposed`;
  return pause(
    record,
    {
      kind: "policy",
      detail: "contract_unconfirmed",
      message: clip(
        `${why}; send the revision again with successChecks (POST /goals/{goalId}/revisions, or /goal redirect <text> --check <id>: <kind> …), then resume`,
        2000,
      ),
    },
    now,
  );
}

/** Nobody confirmed the contract before the wait timed out: the goal pauses; a resume asks again. */
export function pauseOnContractTimeout(record: GoalRecord, now: Date): GoalChange {
  return pause(
    record,
    {
      kind: "policy",
      detail: "contract_unconfirmed",
      message: "nobody confirmed the new contract before the approval timed out; resume to ask again",
    },
    now,
  );
}
