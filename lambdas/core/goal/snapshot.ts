import { checkProgress, satisfiedCheckIds, unsatisfiedCheckIds } from "./evidence/check-evidence";
import { billedUsage, usageLess } from "./fork";
import type { GoalRecord, GoalSnapshot } from "./goal-record";
import type { Saga } from "./saga";
import type { Usage } from "./usage";

type Child = NonNullable<GoalSnapshot["children"]>[number];

/**
 * The public snapshot of a goal (`GET /goals/{goalId}`), derived from its record. `children` are its
 * sub-goals' records as they are now; without them the children are shown as the parent last heard
 * of them (status only).
 */
export function toSnapshot(
  record: GoalRecord,
  options: { children?: readonly GoalRecord[] } = {},
): GoalSnapshot {
  const inherited = record.fork?.inherited;
  const children = childrenOf(record, options.children);
  return {
    goalId: record.goalId,
    status: record.status,
    revision: record.revision,
    pattern: record.pattern,
    patternReason: record.patternReason,
    objective: record.spec.objective,
    activeTask: record.activeTask,
    ...activityOf(record),
    runId: record.runId,
    lastEventId: record.lastEventSeq,
    noProgressCycles: record.noProgressCycles,
    waitingFor: waitingForOf(record, options.children),
    resumeCondition: record.resumeCondition,
    satisfiedChecks: satisfiedCheckIds(record),
    unsatisfiedChecks: unsatisfiedCheckIds(record),
    lastEvidence: record.evidence.at(-1) ?? null,
    steps: record.steps,
    usage: {
      ...shown(billedUsage(record)),
      ...(inherited === undefined ? {} : { inherited: shown(inherited.usage) }),
    },
    usageByRole: Object.fromEntries(
      Object.entries(record.usageByRole)
        .map(([role, roleUsage]) => {
          const roleInherited = inherited?.usageByRole[role as keyof typeof inherited.usageByRole];
          return [role, shown(usageLess(roleUsage, roleInherited))] as const;
        })
        .filter(([, roleUsage]) => roleUsage.modelCalls > 0),
    ),
    reasoningByRole: record.reasoningByRole ?? {},
    limits: record.spec.limits,
    progress: checkProgress(record),
    stopReason: record.stopReason,
    ...(record.pauseRequest === undefined ? {} : { pauseRequested: record.pauseRequest }),
    ...(record.spec.parentGoalId === undefined ? {} : { parentGoalId: record.spec.parentGoalId }),
    ...(record.spec.forkedFrom === undefined ? {} : { forkedFrom: record.spec.forkedFrom }),
    ...(children.length === 0 ? {} : { children }),
    ...(record.saga === undefined ? {} : { compensation: publicSaga(record.saga) }),
    version: record.runsOn?.version ?? null,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/**
 * What a running goal is doing: the model capacity it waits for, else the step it is in. Nothing
 * for a goal that is not running (what a waiting goal waits for is `waitingFor`).
 */
function activityOf(record: GoalRecord): Pick<GoalSnapshot, "activity"> {
  if (record.status !== "running") return {};
  const waiting = record.activity;
  if (waiting !== undefined) {
    const { model, role, since, until, reason } = waiting;
    return { activity: { kind: "waiting_for_capacity", model, role, since, until, reason } };
  }
  return record.activeTask === null ? {} : { activity: { kind: "step", task: record.activeTask } };
}

/** Usage as the snapshot shows it: without cache writes (priced in the cost). */
function shown({ cacheWriteTokens: _cacheWrite, ...usage }: Usage): Omit<Usage, "cacheWriteTokens"> {
  return usage;
}

/** The saga as a human reads it: its position in the call order is the loop's business. */
function publicSaga({ processed: _processed, ...saga }: Saga): NonNullable<GoalSnapshot["compensation"]> {
  return saga;
}

function childrenOf(record: GoalRecord, current: readonly GoalRecord[] | undefined): Child[] {
  return (record.subgoals ?? []).flatMap((entry): Child[] => {
    if (entry.goalId === undefined) return [];
    const child = current?.find((candidate) => candidate.goalId === entry.goalId);
    if (!child) {
      const status = entry.status === "refused" ? "cancelled" : entry.status;
      return [{ goalId: entry.goalId, status, objective: entry.objective }];
    }
    return [
      {
        goalId: child.goalId,
        status: child.status,
        progress: checkProgress(child),
        objective: child.spec.objective,
        waitingFor: child.waitingFor,
      },
    ];
  });
}

/**
 * What the goal waits for. A goal waiting on its sub-goals names them, and a child that itself waits
 * for a human (or is paused) is named with what it waits for: the human sees whom to answer.
 */
function waitingForOf(
  record: GoalRecord,
  children: readonly GoalRecord[] | undefined,
): GoalSnapshot["waitingFor"] {
  const waiting = record.waitingFor;
  if (waiting?.kind !== "subgoal" || children === undefined) return waiting;
  const awaited = new Set(waiting.goalIds ?? []);
  const stuck = children.filter(
    (child) => awaited.has(child.goalId) && (child.status === "waiting" || child.status === "paused"),
  );
  if (stuck.length === 0) return waiting;
  const why = stuck.map((child) =>
    child.status === "paused"
      ? `sub-goal ${child.goalId} is paused (${child.stopReason?.message ?? "a human resumes it"})`
      : `sub-goal ${child.goalId} waits: ${child.waitingFor?.reason ?? "for a human"}`,
  );
  return { ...waiting, reason: `${waiting.reason}; ${why.join("; ")}`.slice(0, 2000) };
}
