import { PAUSABLE_STATUSES, requestPause } from "../goal/human-pause";
import { updateGoal } from "../loop/update-goal";
import type { GoalStore } from "../ports/goal-store";
import type { PauseRequestedDetail } from "./human-input-events";

export interface HandlePausePorts {
  readonly goals: GoalStore;
  readonly now: () => Date;
}

export type HandlePauseResult =
  | { readonly outcome: "requested"; readonly goalId: string; readonly status: string }
  | { readonly outcome: "ignored"; readonly goalId: string; readonly reason: string };

/**
 * A `Pause Requested` event: a running or waiting goal records the request (`requestPause`) and the
 * loop pauses it at its next step boundary; nothing is stopped from outside, so no model or tool
 * call is cut and a pending approval stays as it is. A duplicate (the same or a second request
 * before the first took effect) changes nothing; a goal that is paused already or final is left
 * alone, with the reason.
 */
export async function handlePauseRequested(
  ports: HandlePausePorts,
  detail: PauseRequestedDetail,
): Promise<HandlePauseResult> {
  const { goalId } = detail;
  const found = await ports.goals.getGoal(goalId);
  if (!found) return { outcome: "ignored", goalId, reason: `goal '${goalId}' does not exist` };
  const now = ports.now();
  const { record } = await updateGoal(ports.goals, found, (current) =>
    PAUSABLE_STATUSES.includes(current.status) && current.pauseRequest === undefined
      ? requestPause(
          current,
          {
            by: detail.requestedBy,
            channel: detail.channel,
            ...(detail.reason === undefined ? {} : { reason: detail.reason }),
          },
          now,
        )
      : undefined,
  );
  if (!PAUSABLE_STATUSES.includes(record.status)) {
    return { outcome: "ignored", goalId, reason: `goal is ${record.status}; pause needs running or waiting` };
  }
  return { outcome: "requested", goalId, status: record.status };
}
