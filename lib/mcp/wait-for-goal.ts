import type { GoalSnapshot } from "../../lambdas/core/goal/goal-record";
import { isFinal } from "../../lambdas/core/goal/goal-status";
import type { GoalLoopsClient } from "../client/goal-loops-client";

/** How far the goal's contract is: checks met, of all checks (what progress notifications count). */
export interface CheckProgress {
  readonly met: number;
  readonly total: number;
}

export function checkProgressOf(snapshot: GoalSnapshot): CheckProgress {
  const states = Object.values(snapshot.progress.checks);
  return { met: states.filter((state) => state === "met").length, total: states.length };
}

/** Why wait_for_goal answered: the goal ended, its status changed (to waiting for an approval, say), or time ran out. */
export type WaitOutcome = "final" | "status_changed" | "timeout";

/**
 * Waits until the goal ends, changes status (a running goal that starts waiting for an approval, a
 * waiting one that runs on) or `timeoutSeconds` pass, long-polling its events (each poll at most 20 s, the API's cap) and reading the snapshot
 * after each batch. `onProgress` is called whenever the count of met checks changes. It never
 * holds longer than the timeout (the poll's own wait is cut to what is left).
 */
export async function waitForGoal(
  client: GoalLoopsClient,
  request: { goalId: string; timeoutSeconds: number; signal?: AbortSignal },
  onProgress: (progress: CheckProgress, snapshot: GoalSnapshot) => Promise<void>,
  now: () => number = Date.now,
): Promise<{ outcome: WaitOutcome; snapshot: GoalSnapshot }> {
  const deadline = now() + request.timeoutSeconds * 1000;
  let snapshot = await client.getGoal(request.goalId);
  const startStatus = snapshot.status;
  let after = snapshot.lastEventId;
  let met = checkProgressOf(snapshot).met;
  await onProgress(checkProgressOf(snapshot), snapshot);
  for (;;) {
    const outcome = outcomeOf(snapshot, startStatus);
    if (outcome !== undefined) return { outcome, snapshot };
    const left = Math.floor((deadline - now()) / 1000);
    if (left < 1 || request.signal?.aborted) return { outcome: "timeout", snapshot };
    const page = await client.waitForEvents(request.goalId, after, Math.min(20, left), request.signal);
    after = page.nextSeq;
    if (page.items.length === 0) continue;
    snapshot = await client.getGoal(request.goalId);
    const progress = checkProgressOf(snapshot);
    if (progress.met !== met) {
      met = progress.met;
      await onProgress(progress, snapshot);
    }
  }
}

function outcomeOf(snapshot: GoalSnapshot, startStatus: string): WaitOutcome | undefined {
  if (isFinal(snapshot.status)) return "final";
  return snapshot.status === startStatus ? undefined : "status_changed";
}
