import { canonicalJson } from "../canonical-json";
import type { GoalRecord } from "../goal-record";
import type { SuccessCheck, Verify } from "../goal-spec";
import { evidenceFor } from "./check-evidence";
import type { ArtifactObservation, CycleObservations, ToolResultObservation } from "./cycle-observations";
import type { Evidence } from "./evidence";

type ArtifactVerify = Extract<Verify, { kind: "artifact" }>;
type ToolResultVerify = Extract<Verify, { kind: "tool_result" }>;

/** Where new evidence comes from, for the audit trail. */
export interface EvidenceOrigin {
  readonly runId: string;
  readonly iteration: number;
  readonly at: string;
}

export interface JudgedChecks {
  /** The goal's evidence after the cycle: kept entries first, new ones last (newest last). */
  readonly evidence: Evidence[];
  readonly recorded: Evidence[];
  /** Checks whose artifact changed into one that no longer meets them. */
  readonly revoked: Evidence[];
}

function artifactMeets(verify: ArtifactVerify, artifact: ArtifactObservation): boolean {
  if (verify.contains === undefined) return true;
  return artifact.content?.includes(verify.contains) ?? false;
}

/** Whether a recorded tool result meets a check's predicate: every given condition must hold. */
export function toolResultMeets(verify: ToolResultVerify, result: ToolResultObservation): boolean {
  if (result.tool !== verify.tool || result.status !== verify.expect.status) return false;
  const { contains, equals } = verify.expect;
  if (contains !== undefined) {
    const text = [
      result.resultText ?? "",
      result.resultJson === undefined ? "" : canonicalJson(result.resultJson),
    ];
    if (!text.some((part) => part.includes(contains))) return false;
  }
  if (equals !== undefined) {
    const actual = result.resultJson !== undefined ? result.resultJson : result.resultText;
    if (actual === undefined || canonicalJson(actual) !== canonicalJson(equals)) return false;
  }
  return true;
}

type Judgement = { kind: "keep" } | { kind: "record"; evidence: Evidence } | { kind: "revoke" };

function judgeArtifact(
  check: SuccessCheck,
  verify: ArtifactVerify,
  existing: Evidence | undefined,
  observations: CycleObservations,
  origin: EvidenceOrigin,
): Judgement {
  // The latest version of the file this cycle is the one that counts.
  const latest = observations.artifacts.filter((artifact) => artifact.path === verify.path).at(-1);
  if (!latest) return { kind: "keep" };
  if (existing?.kind === "artifact" && existing.sha256 === latest.sha256) return { kind: "keep" };
  if (artifactMeets(verify, latest)) {
    const evidence: Evidence = {
      ...origin,
      checkId: check.id,
      kind: "artifact",
      strength: "strong",
      path: latest.path,
      sha256: latest.sha256,
    };
    return { kind: "record", evidence };
  }
  return existing ? { kind: "revoke" } : { kind: "keep" };
}

function judgeCheck(
  check: SuccessCheck,
  existing: Evidence | undefined,
  observations: CycleObservations,
  origin: EvidenceOrigin,
): Judgement {
  const verify = check.verify;
  switch (verify.kind) {
    case "artifact":
      return judgeArtifact(check, verify, existing, observations, origin);
    case "tool_result": {
      if (existing) return { kind: "keep" };
      const result = observations.toolResults.find((candidate) => toolResultMeets(verify, candidate));
      if (!result) return { kind: "keep" };
      const evidence: Evidence = {
        ...origin,
        checkId: check.id,
        kind: "tool_result",
        strength: "strong",
        tool: result.tool,
        resultSha256: result.sha256,
      };
      return { kind: "record", evidence };
    }
    case "approval": {
      if (existing) return { kind: "keep" };
      const approval = observations.approvals.find(
        (candidate) => candidate.checkId === check.id && candidate.decision === "approve",
      );
      if (!approval) return { kind: "keep" };
      const evidence: Evidence = {
        ...origin,
        checkId: check.id,
        kind: "approval",
        strength: "strong",
        approvalId: approval.approvalId,
        decidedBy: approval.decidedBy,
      };
      return { kind: "record", evidence };
    }
    case "model_judge":
      // Only `recordJudgement` adds model judgements, labelled weak.
      return { kind: "keep" };
  }
}

/**
 * Judges the goal's success checks against what the cycle recorded. Model text plays no part: only
 * artifacts (path and hash, and content for `contains`), tool results and approval decisions do.
 */
export function judgeChecks(
  record: Pick<GoalRecord, "evidence" | "spec">,
  observations: CycleObservations,
  origin: EvidenceOrigin,
): JudgedChecks {
  const recorded: Evidence[] = [];
  const revoked: Evidence[] = [];
  for (const check of record.spec.successChecks) {
    const existing = evidenceFor(record, check);
    const judgement = judgeCheck(check, existing, observations, origin);
    if (judgement.kind === "record") recorded.push(judgement.evidence);
    if (existing && judgement.kind !== "keep") revoked.push(existing);
  }
  const evidence = [...record.evidence.filter((item) => !revoked.includes(item)), ...recorded];
  // A replaced artifact evidence is not a revocation: the check stays satisfied with the new hash.
  const stillSatisfied = new Set(recorded.map((item) => item.checkId));
  return { evidence, recorded, revoked: revoked.filter((item) => !stillSatisfied.has(item.checkId)) };
}
