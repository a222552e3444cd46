import { checkProgress, satisfiedCheckIds, unsatisfiedCheckIds } from "./evidence/check-evidence";
import type { GoalRecord, GoalSnapshot } from "./goal-record";

/** The public snapshot of a goal (`GET /goals/{goalId}`), derived from its record. */
export function toSnapshot(record: GoalRecord): GoalSnapshot {
  const { cacheWriteTokens: _cacheWriteTokens, ...usage } = record.usage;
  return {
    goalId: record.goalId,
    status: record.status,
    revision: record.revision,
    pattern: record.pattern,
    patternReason: record.patternReason,
    objective: record.spec.objective,
    activeTask: record.activeTask,
    runId: record.runId,
    lastEventId: record.lastEventSeq,
    noProgressCycles: record.noProgressCycles,
    waitingFor: record.waitingFor,
    resumeCondition: record.resumeCondition,
    satisfiedChecks: satisfiedCheckIds(record),
    unsatisfiedChecks: unsatisfiedCheckIds(record),
    lastEvidence: record.evidence.at(-1) ?? null,
    steps: record.steps,
    usage,
    usageByRole: Object.fromEntries(
      Object.entries(record.usageByRole)
        .filter(([, roleUsage]) => roleUsage.modelCalls > 0)
        .map(([role, { cacheWriteTokens: _cacheWrite, ...roleUsage }]) => [role, roleUsage]),
    ),
    reasoningByRole: record.reasoningByRole ?? {},
    limits: record.spec.limits,
    progress: checkProgress(record),
    stopReason: record.stopReason,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}
