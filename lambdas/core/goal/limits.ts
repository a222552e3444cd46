import { HUMAN_INPUT_DETAIL_TYPES } from "../human/human-input-events";
import * as z from "../zod";
import { GoalStatusError, ValidationError } from "./errors";
import { type GoalChange, goalEvent, settle } from "./goal-change";
import type { GoalRecord } from "./goal-record";
import { OptionalLimitsSchema } from "./goal-spec";
import { assertStatus, assertTransition, OPEN_STATUSES } from "./goal-status";
import { parseOrThrow } from "./validation";

export const LIMIT_NAMES = ["maxSteps", "maxCostUsd", "deadline", "maxReplans", "maxAttempts"] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

/** A limit the goal has reached, in the shape of a stop reason. */
export interface LimitReached {
  readonly kind: "limit";
  readonly detail: LimitName;
  readonly message: string;
}

/** The EventBridge detail-type of a human decision; it wakes a goal waiting for that approval. */
export const APPROVAL_DECIDED_EVENT = HUMAN_INPUT_DETAIL_TYPES.approvalDecided;

/**
 * The first limit the goal has reached, or undefined. Steps, cost and attempts are reached when
 * used up; the deadline when `now` is at or past it; replans when more were requested than allowed.
 */
export function checkLimits(record: GoalRecord, now: Date): LimitReached | undefined {
  const limits = record.spec.limits;
  const reached = (detail: LimitName, message: string): LimitReached => ({ kind: "limit", detail, message });
  if (record.steps >= limits.maxSteps) {
    return reached("maxSteps", `maxSteps reached: ${record.steps} of ${limits.maxSteps} steps used`);
  }
  if (record.usage.costUsd >= limits.maxCostUsd) {
    return reached(
      "maxCostUsd",
      `maxCostUsd reached: $${record.usage.costUsd} spent of $${limits.maxCostUsd}`,
    );
  }
  // A model call the rest of the budget cannot pay for at its worst case was not made.
  const shortfall = record.costShortfall;
  if (shortfall && record.usage.costUsd + shortfall.neededUsd > limits.maxCostUsd) {
    const left = limits.maxCostUsd - record.usage.costUsd;
    return reached(
      "maxCostUsd",
      `maxCostUsd reached: the next ${shortfall.role} call may cost up to $${shortfall.neededUsd.toFixed(4)}, and $${left.toFixed(4)} of $${limits.maxCostUsd} is left`,
    );
  }
  if (limits.deadline !== undefined && now.getTime() >= Date.parse(limits.deadline)) {
    return reached("deadline", `deadline reached: ${limits.deadline} has passed`);
  }
  const replans = record.replans ?? 0;
  if (replans > limits.maxReplans) {
    return reached(
      "maxReplans",
      `maxReplans reached: replan ${replans} requested, ${limits.maxReplans} allowed`,
    );
  }
  const attempts = record.attempts ?? 0;
  if (attempts >= limits.maxAttempts) {
    return reached("maxAttempts", `maxAttempts reached: ${attempts} of ${limits.maxAttempts} attempts used`);
  }
  return undefined;
}

/** What is left of `maxCostUsd` for the goal's next model call (never below 0). */
export function remainingBudgetUsd(record: GoalRecord): number {
  return Math.max(0, record.spec.limits.maxCostUsd - record.usage.costUsd);
}

/** A limit stops blind looping: the goal waits for a human to extend it or terminate the goal. */
export function awaitLimitDecision(
  record: GoalRecord,
  limit: LimitReached,
  approvalId: string,
  now: Date,
): GoalChange {
  assertTransition(record, "waiting", "awaitLimitDecision", ["running"]);
  const stopReason = { ...limit, at: now.toISOString() };
  const next: GoalRecord = {
    ...record,
    updatedAt: stopReason.at,
    status: "waiting",
    activeTask: null,
    waitingFor: { kind: "decision", approvalId, reason: limit.message },
    resumeCondition: { eventType: APPROVAL_DECIDED_EVENT, approvalId, revision: record.revision },
    // The reason the goal will stop if nobody extends the limit.
    stopReason,
  };
  return settle(next, [
    goalEvent(next, "limit.reached", now, { limit: limit.detail, message: limit.message, approvalId }),
    goalEvent(next, "goal.waiting", now, {
      waitingFor: next.waitingFor,
      resumeCondition: next.resumeCondition,
    }),
  ]);
}

/**
 * The limits a human may change in a decision, with the GoalSpec's bounds. Built without the spec's
 * defaults: a patch naming one limit must not reset the others.
 */
export const LimitsPatchSchema = /* @__PURE__ */ z.lazySchema(() =>
  OptionalLimitsSchema.check(
    z.refine((patch) => Object.keys(patch).length > 0, {
      message: "must change at least one limit",
    }),
  ),
);
export type LimitsPatch = z.input<typeof LimitsPatchSchema>;

/**
 * A human extends the goal's limits (the answer to a limit decision). When the goal waits on a
 * reached limit, the patch must clear it; the goal then wakes through `resumeFromWait`.
 */
export function extendLimits(record: GoalRecord, patch: LimitsPatch, by: string, now: Date): GoalChange {
  assertStatus(record, OPEN_STATUSES, "extendLimits");
  const changes = parseOrThrow(LimitsPatchSchema, patch, "limits patch");
  const limits = { ...record.spec.limits, ...changes };
  const next: GoalRecord = { ...record, updatedAt: now.toISOString(), spec: { ...record.spec, limits } };
  const pending = record.stopReason?.kind === "limit" ? record.stopReason.detail : undefined;
  const still = checkLimits(next, now);
  if (pending !== undefined && still?.detail === pending) {
    throw new ValidationError(
      `Invalid limits patch: it does not clear the reached limit (${still.message})`,
      [{ path: pending, message: `does not clear the reached limit: ${still.message}` }],
    );
  }
  const extended = goalEvent(next, "limits.extended", now, {
    by,
    changes: z.json().parse(changes),
    previous: z.json().parse(record.spec.limits),
  });
  return settle(next, [extended]);
}

/** No decision came before the limit decision's wait timed out: the goal ends, `terminated`. */
export function terminateOnLimitTimeout(record: GoalRecord, now: Date): GoalChange {
  const limit = record.stopReason;
  if (record.status !== "waiting" || record.waitingFor?.kind !== "decision" || limit?.kind !== "limit") {
    throw new GoalStatusError({
      goalId: record.goalId,
      status: record.status,
      operation: "terminateOnLimitTimeout",
      allowed: ["waiting for a limit decision"],
    });
  }
  assertTransition(record, "terminated", "terminateOnLimitTimeout", ["waiting"]);
  const stopReason = {
    ...limit,
    message: `${limit.message}; no decision before the wait timed out`,
    at: now.toISOString(),
  };
  const next: GoalRecord = {
    ...record,
    updatedAt: stopReason.at,
    status: "terminated",
    activeTask: null,
    waitingFor: null,
    resumeCondition: null,
    stopReason,
  };
  return settle(next, [goalEvent(next, "goal.terminated", now, { stopReason })]);
}

/** Counts a replan the plan_execute loop asks for; `checkLimits` then tells whether it is allowed. */
export function recordReplan(record: GoalRecord, reason: string, now: Date): GoalChange {
  assertStatus(record, ["running"], "recordReplan");
  const replans = (record.replans ?? 0) + 1;
  const next: GoalRecord = { ...record, updatedAt: now.toISOString(), replans };
  return settle(next, [goalEvent(next, "replan.requested", now, { replans, reason })]);
}

/** Counts an attempt the reflexion loop starts (call after `checkLimits` allowed it). */
export function recordAttempt(record: GoalRecord, now: Date): GoalChange {
  assertStatus(record, ["running"], "recordAttempt");
  const attempts = (record.attempts ?? 0) + 1;
  const next: GoalRecord = { ...record, updatedAt: now.toISOString(), attempts };
  return settle(next, [goalEvent(next, "attempt.started", now, { attempt: attempts })]);
}
