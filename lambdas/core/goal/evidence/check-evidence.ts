import type { GoalRecord } from "../goal-record";
import type { SuccessCheck } from "../goal-spec";
import type { Evidence } from "./evidence";

/**
 * The evidence that satisfies `check`, if any. Evidence only counts for a check of its own kind: a
 * model judgement can never stand in for an artifact, a tool result or an approval.
 */
export function evidenceFor(record: Pick<GoalRecord, "evidence">, check: SuccessCheck): Evidence | undefined {
  return record.evidence.find((item) => item.checkId === check.id && item.kind === check.verify.kind);
}

/** Ids of the current success checks that have evidence, in spec order. */
export function satisfiedCheckIds(record: Pick<GoalRecord, "evidence" | "spec">): string[] {
  return record.spec.successChecks.filter((check) => evidenceFor(record, check)).map((check) => check.id);
}

/** Ids of the current success checks without evidence, in spec order. */
export function unsatisfiedCheckIds(record: Pick<GoalRecord, "evidence" | "spec">): string[] {
  return record.spec.successChecks.filter((check) => !evidenceFor(record, check)).map((check) => check.id);
}

export type CheckProgress = "met" | "partial" | "not_met";

/**
 * How far each success check is (snapshot `progress`): `met` with evidence; `partial` when new
 * evidence moved toward it (its file written but not yet right, its tool answered otherwise) or a
 * human is being asked about it; else `not_met`. `overall` counts a partial check as half.
 */
export function checkProgress(
  record: Pick<GoalRecord, "evidence" | "spec" | "partialChecks" | "checkApproval">,
): { overall: number; checks: Record<string, CheckProgress> } {
  const partial = new Set(record.partialChecks ?? []);
  if (record.checkApproval?.outcome === "pending") partial.add(record.checkApproval.checkId);
  const checks = Object.fromEntries(
    record.spec.successChecks.map((check): [string, CheckProgress] => [
      check.id,
      evidenceFor(record, check) ? "met" : partial.has(check.id) ? "partial" : "not_met",
    ]),
  );
  const values = Object.values(checks);
  const score = values.reduce((sum, value) => sum + (value === "met" ? 1 : value === "partial" ? 0.5 : 0), 0);
  const overall = values.length === 0 ? 0 : Math.round((score / values.length) * 100) / 100;
  return { overall, checks };
}
