import { type GoalChange, goalEvent, settle } from "./goal-change";
import { pause } from "./goal-lifecycle";
import type { GoalRecord, GoalStatus, PauseRequest } from "./goal-record";
import { assertStatus } from "./goal-status";

/**
 * A human's pause is cooperative: `POST /goals/{goalId}/pause` only records the request
 * (`requestPause`), and the loop applies it at its next step boundary (`pauseAsRequested`, in each
 * pattern's verify step), so no model or tool call is ever cut in half and every checkpoint stays.
 * A waiting goal keeps its wait (invariant 2) and its pending approval, which is decided exactly
 * once as usual; it pauses at the boundary after the wait. A resume before the boundary withdraws
 * the request (`withdrawPause`); a goal that ends first (completed, cancelled) drops it.
 */

/** The statuses a pause may be asked of: a goal the loop will still bring to a step boundary. */
export const PAUSABLE_STATUSES: readonly GoalStatus[] = ["running", "waiting"];

export type PauseRequestInput = Omit<PauseRequest, "at">;

/**
 * Records a human's pause request on a running or waiting goal (`goal.pause_requested`). A goal
 * that has one already keeps the first (the same request twice changes nothing): undefined.
 * Throws GoalStatusError for any other status.
 */
export function requestPause(
  record: GoalRecord,
  input: PauseRequestInput,
  now: Date,
): GoalChange | undefined {
  assertStatus(record, PAUSABLE_STATUSES, "pause");
  if (record.pauseRequest !== undefined) return undefined;
  const pauseRequest: PauseRequest = { ...input, at: now.toISOString() };
  const next: GoalRecord = { ...record, pauseRequest, updatedAt: now.toISOString() };
  return settle(next, [
    goalEvent(next, "goal.pause_requested", now, {
      by: input.by,
      reason: input.reason ?? null,
      channel: input.channel,
      status: record.status,
    }),
  ]);
}

/** A resume that came before the pause took effect: the request is withdrawn and the goal runs on. */
export function withdrawPause(record: GoalRecord, by: string, now: Date): GoalChange | undefined {
  if (record.pauseRequest === undefined) return undefined;
  const next: GoalRecord = { ...record, pauseRequest: undefined, updatedAt: now.toISOString() };
  return settle(next, [
    goalEvent(next, "goal.pause_withdrawn", now, { by, requestedBy: record.pauseRequest.by }),
  ]);
}

/**
 * The step boundary: a running goal with a pause request pauses now (`goal.paused`, `by: "human"`),
 * keeping everything it has; a resume takes over this very iteration. Undefined otherwise (no
 * request, or the goal waits, completed or stopped in the same step: those come first).
 */
export function pauseAsRequested(record: GoalRecord, now: Date): GoalChange | undefined {
  const request = record.pauseRequest;
  if (request === undefined || record.status !== "running") return undefined;
  return pause(
    record,
    {
      kind: "human",
      detail: request.by,
      message: request.reason ?? `paused by ${request.by} through ${request.channel}; resume to continue`,
    },
    now,
    { by: "human", requestedBy: request.by, reason: request.reason ?? null, requestedAt: request.at },
  );
}
