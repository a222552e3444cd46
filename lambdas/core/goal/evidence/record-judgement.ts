import { ValidationError } from "../errors";
import { type GoalChange, goalEvent, settle } from "../goal-change";
import type { NewGoalEvent } from "../goal-event";
import type { GoalRecord } from "../goal-record";
import { assertStatus } from "../goal-status";
import { clip } from "../text";
import { evidenceFor } from "./check-evidence";
import type { Evidence } from "./evidence";

export interface JudgementInput {
  readonly checkId: string;
  readonly modelId: string;
  /** The judge's verdict text, kept (truncated) beside the evidence. */
  readonly verdict: string;
  readonly satisfied: boolean;
  readonly now: Date;
  readonly iteration: number;
}

const MAX_VERDICT = 2000;

/**
 * Records a `judge` model call's verdict on a `model_judge` check. A positive verdict becomes
 * evidence labelled `weak`; it can only ever satisfy a model_judge check. Call it before `recordCycle`
 * of the same iteration: the cycle counts the newly satisfied check as progress.
 */
export function recordJudgement(record: GoalRecord, input: JudgementInput): GoalChange {
  assertStatus(record, ["running"], "recordJudgement");
  const check = record.spec.successChecks.find((candidate) => candidate.id === input.checkId);
  if (check?.verify.kind !== "model_judge") {
    const message = check
      ? `check '${input.checkId}' is verified by ${check.verify.kind}, not model_judge`
      : `no success check '${input.checkId}'`;
    throw new ValidationError(`Invalid judgement: ${message}`, [{ path: "checkId", message }]);
  }
  const verdict = clip(input.verdict, MAX_VERDICT);
  const at = input.now.toISOString();
  const judged = goalEvent(record, "judgement.recorded", input.now, {
    checkId: check.id,
    modelId: input.modelId,
    satisfied: input.satisfied,
    strength: "weak",
    verdict,
  });
  if (!input.satisfied || evidenceFor(record, check)) {
    return settle({ ...record, updatedAt: at }, [judged]);
  }
  const evidence: Evidence = {
    checkId: check.id,
    kind: "model_judge",
    strength: "weak",
    modelId: input.modelId,
    verdict,
    runId: record.runId,
    iteration: input.iteration,
    at,
  };
  const next: GoalRecord = { ...record, updatedAt: at, evidence: [...record.evidence, evidence] };
  const events: NewGoalEvent[] = [judged, goalEvent(next, "evidence.recorded", input.now, { ...evidence })];
  return settle(next, events);
}
