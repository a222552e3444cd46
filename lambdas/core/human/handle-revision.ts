import { ValidationError } from "../goal/errors";
import { isFinal } from "../goal/goal-status";
import { queueRevision } from "../goal/revisions";
import { updateGoal } from "../loop/update-goal";
import type { GoalStore } from "../ports/goal-store";
import type { RevisionRequestedDetail } from "./human-input-events";

export interface HandleRevisionPorts {
  readonly goals: GoalStore;
  readonly now: () => Date;
}

export type HandleRevisionResult =
  | { readonly outcome: "queued"; readonly revisionId: string }
  | { readonly outcome: "duplicate"; readonly revisionId: string }
  | { readonly outcome: "ignored"; readonly revisionId: string; readonly reason: string };

/**
 * A `Revision Requested` event: the revision goes into the goal's inbox (`revision.queued`) and is
 * applied at the run's next step boundary. It never wakes or changes the status of a goal: a waiting
 * goal keeps waiting, a paused one stays paused until resumed. A revision id already queued or
 * applied is a duplicate delivery and changes nothing; an unknown or final goal, or a revision the
 * goal's contract refuses, is ignored with the reason (redelivering it would not help).
 */
export async function handleRevisionRequested(
  ports: HandleRevisionPorts,
  detail: RevisionRequestedDetail,
): Promise<HandleRevisionResult> {
  const { goalId, revisionId } = detail;
  const found = await ports.goals.getGoal(goalId);
  if (!found) return { outcome: "ignored", revisionId, reason: `goal '${goalId}' does not exist` };
  if (isFinal(found.record.status)) {
    return { outcome: "ignored", revisionId, reason: `goal is ${found.record.status}` };
  }
  const input = {
    type: detail.type,
    content: detail.content,
    requestedBy: detail.requestedBy,
    ...(detail.successChecks === undefined ? {} : { successChecks: detail.successChecks }),
    ...(detail.reason === undefined ? {} : { reason: detail.reason }),
    ...(detail.target === undefined ? {} : { target: detail.target }),
  };
  const now = ports.now();
  let queued = false;
  try {
    await updateGoal(ports.goals, found, (current) => {
      queued = false;
      if (isFinal(current.status)) return undefined;
      const change = queueRevision(current, input, { revisionId, now });
      queued = change.events.length > 0;
      return queued ? change : undefined;
    });
  } catch (error) {
    if (error instanceof ValidationError) return { outcome: "ignored", revisionId, reason: error.message };
    throw error;
  }
  return queued ? { outcome: "queued", revisionId } : { outcome: "duplicate", revisionId };
}
