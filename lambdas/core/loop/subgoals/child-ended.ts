import { type GoalChange, goalEvent, settle } from "../../goal/goal-change";
import { resumeFromWait } from "../../goal/goal-lifecycle";
import { EMPTY_USAGE, type GoalRecord, type Usage } from "../../goal/goal-record";
import { isFinal } from "../../goal/goal-status";
import { isSettledEntry, runningSubgoals, type SubgoalEntry, type SubgoalWait } from "../../goal/subgoals";
import type { ModelRole } from "../../models/model-roles";
import type { Clock } from "../../ports/clock";
import type { GoalStore } from "../../ports/goal-store";
import { type TaskCallback, TaskTokenGoneError } from "../../ports/task-callback";
import type { StepResult } from "../step-result";
import { updateGoal } from "../update-goal";

/** What wakes a goal waiting on its sub-goals: the `resumeCondition.eventType` of a sub-goal wait. */
export const SUBGOAL_ENDED_EVENT = "Goal Ended";

const roundUsd = (usd: number) => Math.round(usd * 1e9) / 1e9;

function addUsage(total: Usage, more: Usage): Usage {
  return {
    inputTokens: total.inputTokens + more.inputTokens,
    outputTokens: total.outputTokens + more.outputTokens,
    cacheReadTokens: total.cacheReadTokens + more.cacheReadTokens,
    cacheWriteTokens: total.cacheWriteTokens + more.cacheWriteTokens,
    modelCalls: total.modelCalls + more.modelCalls,
    costUsd: roundUsd(total.costUsd + more.costUsd),
  };
}

/** Whether every child the wait's turn started has ended (or was refused). */
function turnSettled(record: GoalRecord, wait: SubgoalWait): boolean {
  return (record.subgoals ?? [])
    .filter((entry) => entry.runId === wait.runId && entry.iteration === wait.iteration)
    .every(isSettledEntry);
}

/** The change that records ended children on their parent, and the wait it ended, if it ended one. */
export interface ChildrenEnded {
  readonly change: GoalChange;
  /** The wait this change woke the parent from: its token gets the answer. */
  readonly woke?: SubgoalWait;
}

/**
 * Records on the parent that `children` ended, once each: the entry takes the child's final status
 * and usage, the parent's usage (and usage by role) grows by the child's, and `subgoal.ended` says
 * so. This happens whatever the parent's status (a cancelled parent still paid for its children).
 * When the parent waits on the children of a turn and now all of them ended, it wakes into `act`:
 * Act answers each call with its child's outcome. Undefined when there is nothing to record.
 */
export function recordChildrenEnded(
  parent: GoalRecord,
  children: readonly GoalRecord[],
  now: Date,
): ChildrenEnded | undefined {
  let record = parent;
  const events: GoalChange["events"] = [];
  for (const child of children) {
    const entry = record.subgoals?.find((item) => item.goalId === child.goalId);
    if (!entry || !isFinal(child.status)) continue;
    if (isSettledEntry(entry)) {
      record = lateUsage(record, entry, child, now, events);
      continue;
    }
    const status = child.status as "completed" | "cancelled" | "terminated";
    const usageByRole = { ...record.usageByRole };
    for (const [role, usage] of Object.entries(child.usageByRole) as [ModelRole, Usage][]) {
      usageByRole[role] = addUsage(usageByRole[role] ?? EMPTY_USAGE, usage);
    }
    record = {
      ...record,
      updatedAt: now.toISOString(),
      usage: addUsage(record.usage, child.usage),
      usageByRole,
      subgoals: (record.subgoals ?? []).map((item) =>
        item.goalId === child.goalId
          ? {
              ...item,
              status,
              usage: child.usage,
              usageByRole: child.usageByRole,
              endedAt: now.toISOString(),
            }
          : item,
      ),
    };
    events.push(
      goalEvent(record, "subgoal.ended", now, {
        subgoalId: child.goalId,
        status,
        toolUseId: entry.toolUseId,
        costUsd: child.usage.costUsd,
        modelCalls: child.usage.modelCalls,
        stopReason: child.stopReason?.message ?? null,
      }),
    );
  }
  if (events.length === 0) return undefined;
  const wait = parent.subgoalWait;
  const waits =
    record.status === "waiting" &&
    record.waitingFor?.kind === "subgoal" &&
    wait !== undefined &&
    record.waitingFor.approvalId === wait.waitId;
  if (!waits || !turnSettled(record, wait)) return { change: settle(record, events) };
  const woken = resumeFromWait(
    { ...record, subgoalWait: undefined },
    { eventType: SUBGOAL_ENDED_EVENT, approvalId: wait.waitId },
    "act",
    now,
  );
  return { change: settle(woken.record, [...events, ...woken.events]), woke: wait };
}

/**
 * A model call a child had in flight when it was cancelled is counted on the child after its end
 * (it was paid for): the difference reaches the parent too, once (`subgoal.usage`).
 */
function lateUsage(
  record: GoalRecord,
  entry: SubgoalEntry,
  child: GoalRecord,
  now: Date,
  events: GoalChange["events"],
): GoalRecord {
  const counted = entry.usage;
  if (!counted || child.usage.modelCalls <= counted.modelCalls) return record;
  const delta: Usage = {
    inputTokens: child.usage.inputTokens - counted.inputTokens,
    outputTokens: child.usage.outputTokens - counted.outputTokens,
    cacheReadTokens: child.usage.cacheReadTokens - counted.cacheReadTokens,
    cacheWriteTokens: child.usage.cacheWriteTokens - counted.cacheWriteTokens,
    modelCalls: child.usage.modelCalls - counted.modelCalls,
    costUsd: roundUsd(child.usage.costUsd - counted.costUsd),
  };
  const usageByRole = { ...record.usageByRole };
  for (const [role, usage] of Object.entries(child.usageByRole) as [ModelRole, Usage][]) {
    const before = entry.usageByRole?.[role] ?? EMPTY_USAGE;
    if (usage.modelCalls <= before.modelCalls) continue;
    usageByRole[role] = addUsage(usageByRole[role] ?? EMPTY_USAGE, {
      inputTokens: usage.inputTokens - before.inputTokens,
      outputTokens: usage.outputTokens - before.outputTokens,
      cacheReadTokens: usage.cacheReadTokens - before.cacheReadTokens,
      cacheWriteTokens: usage.cacheWriteTokens - before.cacheWriteTokens,
      modelCalls: usage.modelCalls - before.modelCalls,
      costUsd: roundUsd(usage.costUsd - before.costUsd),
    });
  }
  const next: GoalRecord = {
    ...record,
    updatedAt: now.toISOString(),
    usage: addUsage(record.usage, delta),
    usageByRole,
    subgoals: (record.subgoals ?? []).map((item) =>
      item.goalId === child.goalId ? { ...item, usage: child.usage, usageByRole: child.usageByRole } : item,
    ),
  };
  events.push(
    goalEvent(next, "subgoal.usage", now, {
      subgoalId: child.goalId,
      modelCalls: delta.modelCalls,
      costUsd: delta.costUsd,
      reason: "a call the sub-goal had in flight when it ended was counted after its end",
    }),
  );
  return next;
}

export interface SettleChildrenPorts {
  readonly goals: GoalStore;
  readonly callback: TaskCallback;
  readonly now: Clock;
  /** Gives the parent a new run when the run its token belonged to is over (see `reviveDeadRun`). */
  readonly reviveRun?: (goalId: string) => Promise<unknown>;
}

export type SettleOutcome =
  | { readonly outcome: "woke"; readonly ended: readonly string[] }
  | { readonly outcome: "recorded"; readonly ended: readonly string[] }
  | { readonly outcome: "ignored"; readonly reason: string };

/**
 * Looks at every running child of `parentGoalId` and records the ones that ended (see
 * `recordChildrenEnded`); when that wakes the parent, its token is answered with `act`. Any
 * child's end event calls it, and so does the wait itself once it is parked, so an end that came
 * before the parent parked, or an event that was lost, is still seen. Idempotent: a child is
 * recorded once, a token answered once (a second answer finds the parent running and sends nothing).
 */
export async function settleEndedChildren(
  ports: SettleChildrenPorts,
  parentGoalId: string,
  /** The child whose event this is: looked at even when its end is recorded (late usage). */
  endedGoalId?: string,
): Promise<SettleOutcome> {
  const loaded = await ports.goals.getGoal(parentGoalId);
  if (!loaded) return { outcome: "ignored", reason: `goal ${parentGoalId} does not exist` };
  const ids = new Set(runningSubgoals(loaded.record).flatMap((entry) => entry.goalId ?? []));
  if (endedGoalId !== undefined) ids.add(endedGoalId);
  const children = (await Promise.all([...ids].map((goalId) => ports.goals.getGoal(goalId)))).flatMap(
    (found) => (found && isFinal(found.record.status) ? [found.record] : []),
  );
  if (children.length === 0) return { outcome: "ignored", reason: "no sub-goal of it has ended" };
  let woke: SubgoalWait | undefined;
  const now = ports.now();
  let changed = false;
  const { record } = await updateGoal(ports.goals, loaded, (current) => {
    const ended = recordChildrenEnded(current, children, now);
    woke = ended?.woke;
    changed = ended !== undefined;
    return ended?.change;
  });
  if (!changed) return { outcome: "ignored", reason: "every ended sub-goal of it is recorded already" };
  const ended = children.map((child) => child.goalId);
  if (!woke) return { outcome: "recorded", ended };
  const output: StepResult = {
    goalId: record.goalId,
    runId: record.runId,
    iteration: record.runIteration,
    next: "act",
  };
  try {
    await ports.callback.succeed(woke.taskToken, output);
  } catch (error) {
    if (!(error instanceof TaskTokenGoneError)) throw error;
    // The run that waited is over (re-attached, stopped): a new run acts on the woken goal.
    await ports.reviveRun?.(record.goalId);
  }
  return { outcome: "woke", ended };
}
