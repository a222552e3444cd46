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
