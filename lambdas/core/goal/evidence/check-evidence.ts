import type { GoalRecord } from "../goal-record";
import type { SuccessCheck } from "../goal-spec";
import { SPAWN_SUBGOAL_TOOL } from "../subgoals";
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
 * evidence moved toward it (its file written but not yet right, its tool answered otherwise), a
 * human is being asked about it, or a sub-goal that serves it still runs (a `tool_result` check on
 * `spawn_subgoal`: the child's outcome is its evidence); else `not_met`. `overall` counts a partial
 * check as half.
 */
export function checkProgress(
  record: Pick<GoalRecord, "evidence" | "spec" | "partialChecks" | "checkApproval" | "subgoals">,
): { overall: number; checks: Record<string, CheckProgress> } {
  const partial = new Set(record.partialChecks ?? []);
  if (record.checkApproval?.outcome === "pending") partial.add(record.checkApproval.checkId);
  if ((record.subgoals ?? []).some((entry) => entry.status === "running")) {
    for (const check of record.spec.successChecks) {
      if (check.verify.kind === "tool_result" && check.verify.tool === SPAWN_SUBGOAL_TOOL)
        partial.add(check.id);
    }
  }
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
