import type { NewGoalEvent } from "../../goal/goal-event";
import { type GoalRecord, GoalStatusSchema } from "../../goal/goal-record";
import { isFinal } from "../../goal/goal-status";
import { runningSubgoals } from "../../goal/subgoals";
import * as z from "../../zod";
import {
  type SettleChildrenPorts,
  type SettleOutcome,
  SUBGOAL_ENDED_EVENT,
  settleEndedChildren,
} from "./child-ended";

/** The `source` of the events that say a goal ended (on the stack's bus, beside human inputs). */
export const GOAL_ENDED_SOURCE = "goal-loops.goals";
/** Their `detail-type`: the event a parent waiting on its sub-goals is woken by. */
export const GOAL_ENDED = SUBGOAL_ENDED_EVENT;

export const GoalEndedDetailSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    goalId: z.string().check(z.minLength(1)),
    status: GoalStatusSchema,
    pattern: z.string(),
    parentGoalId: z.optional(z.string().check(z.minLength(1))),
    endedAt: z.iso.datetime(),
  }),
);
export type GoalEndedDetail = z.infer<typeof GoalEndedDetailSchema>;

/** The EventBridge envelope of a `Goal Ended` event. */
export const GoalEndedEnvelopeSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    source: z.literal(GOAL_ENDED_SOURCE),
    "detail-type": z.literal(GOAL_ENDED),
    detail: GoalEndedDetailSchema,
  }),
);

const END_EVENTS = new Set(["goal.completed", "goal.cancelled", "goal.terminated"]);

/**
 * The `Goal Ended` event a committed change calls for, if any: the change ended the goal (or counted
 * a late model call on an ended sub-goal), and someone must hear of it. Its parent, waiting on it; its own running sub-goals, cancelled with it;
 * a plan_execute goal abandoned (terminated or cancelled), whose completed steps may be compensated.
 */
export function goalEndedSignal(
  record: GoalRecord,
  events: readonly NewGoalEvent[],
): GoalEndedDetail | undefined {
  // A sub-goal's model call counted after its end (in flight when it was cancelled) reaches its parent too.
  const lateUsage =
    record.spec.parentGoalId !== undefined && events.some((event) => event.type === "model.usage");
  const ended = events.find((event) => END_EVENTS.has(event.type)) ?? (lateUsage ? events[0] : undefined);
  if (!ended || !isFinal(record.status)) return undefined;
  const abandoned = record.pattern === "plan_execute" && record.status !== "completed";
  // A goal holding one of its tenant's slots frees it for the tenant's next waiting goal.
  const concerned =
    record.spec.parentGoalId !== undefined ||
    runningSubgoals(record).length > 0 ||
    abandoned ||
    record.concurrencySlot === true;
  if (!concerned) return undefined;
  return {
    goalId: record.goalId,
    status: record.status,
    pattern: record.pattern,
    ...(record.spec.parentGoalId === undefined ? {} : { parentGoalId: record.spec.parentGoalId }),
    endedAt: ended.at,
  };
}

export interface GoalEndedPorts extends SettleChildrenPorts {
  /** Cancels one goal as a human's cancel would (its run stopped, its approvals superseded). */
  readonly cancelGoal: (goalId: string, reason: string) => Promise<unknown>;
  /** Undoes an abandoned plan_execute goal's completed steps when its `onAbandon` says so. */
  readonly compensateAbandoned?: (goalId: string) => Promise<unknown>;
  /**
   * Frees the tenant's slot an ended goal held and starts the tenant's next waiting goals
   * (tenants/tenant-admission.ts). Absent: slots are freed when they run out (`takeSlotHealing`).
   */
  readonly freeSlot?: (record: GoalRecord) => Promise<unknown>;
}

export interface GoalEndedOutcome {
  readonly parent?: SettleOutcome;
  /** Running sub-goals cancelled because this goal ended. */
  readonly cancelled: readonly string[];
  readonly compensation?: unknown;
  /** The waiting goals the freed slot started. */
  readonly admitted?: unknown;
}

/**
 * A goal ended: its parent records it (and wakes when the turn's last child ended), its running
 * children are cancelled with it (a cancelled or terminated parent leaves no child spending), and an
 * abandoned plan_execute goal's saga runs when its `onAbandon` says so. Everything it calls is
 * idempotent, so a redelivered or replayed event changes nothing more.
 */
export async function handleGoalEnded(
  ports: GoalEndedPorts,
  detail: GoalEndedDetail,
): Promise<GoalEndedOutcome> {
  const found = await ports.goals.getGoal(detail.goalId);
  if (!found || !isFinal(found.record.status)) return { cancelled: [] };
  const record = found.record;
  const parentGoalId = record.spec.parentGoalId;
  const parent =
    parentGoalId === undefined ? undefined : await settleEndedChildren(ports, parentGoalId, record.goalId);
  const cancelled: string[] = [];
  for (const entry of runningSubgoals(record)) {
    if (entry.goalId === undefined) continue;
    await ports.cancelGoal(entry.goalId, `its parent goal ${record.goalId} ended ${record.status}`);
    cancelled.push(entry.goalId);
  }
  const compensation =
    record.pattern === "plan_execute" && record.status !== "completed" && ports.compensateAbandoned
      ? await ports.compensateAbandoned(record.goalId)
      : undefined;
  const admitted =
    record.concurrencySlot === true && ports.freeSlot !== undefined
      ? await ports.freeSlot(record)
      : undefined;
  return {
    ...(parent === undefined ? {} : { parent }),
    cancelled,
    ...(compensation === undefined ? {} : { compensation }),
    ...(admitted === undefined ? {} : { admitted }),
  };
}
