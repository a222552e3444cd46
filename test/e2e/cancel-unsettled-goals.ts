import { FINAL_STATUSES, GOAL_STATUSES, type GoalStatus } from "../../lambdas/core/goal/goal-record";
import { type GoalLoopsClient, InvalidStatusApiError } from "../../lib/client/index";
import type { LocalStack } from "../../lib/local/local-stack";

/** Every status a goal can still leave: running, waiting, paused, failed (redrivable). */
const NOT_FINAL: readonly GoalStatus[] = GOAL_STATUSES.filter((status) => !FINAL_STATUSES.has(status));

const SETTLE_DEADLINE_MS = 30_000;

/** A goal a file left behind that did not reach a final status after its cancel. */
export class UnsettledGoalsError extends Error {
  override readonly name = "UnsettledGoalsError";
}

/**
 * Cancels every goal of the caller's tenant that is not final, and waits until each is `cancelled`
 * (or reached another final status on its own) and the event bus is idle: its run stopped, its
 * pending approvals superseded. A shared stack's next file then finds no goal of an earlier file
 * running (burning CPU) or asking for an approval (in its lists). Returns the goals it cancelled.
 */
export async function cancelUnsettledGoals(client: GoalLoopsClient, stack: LocalStack): Promise<string[]> {
  const left = await goalsNotFinal(client);
  for (const goalId of left) {
    await client.cancel(goalId, "the end-to-end file that started it has ended").catch((error: unknown) => {
      // It reached a final status on its own since the listing: nothing left to cancel.
      if (!(error instanceof InvalidStatusApiError)) throw error;
    });
  }
  const deadline = Date.now() + SETTLE_DEADLINE_MS;
  let unsettled = left;
  while (unsettled.length > 0) {
    await stack.events.idle();
    const snapshots = await Promise.all(unsettled.map((goalId) => client.getGoal(goalId)));
    unsettled = snapshots.filter((goal) => !FINAL_STATUSES.has(goal.status)).map((goal) => goal.goalId);
    if (unsettled.length === 0) break;
    if (Date.now() > deadline) {
      throw new UnsettledGoalsError(
        `goals still not final ${SETTLE_DEADLINE_MS} ms after their cancel: ${unsettled.join(", ")}`,
      );
    }
    await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
  }
  await stack.events.idle();
  return left;
}

/** The ids of every goal not in a final status, every page of each status. */
async function goalsNotFinal(client: GoalLoopsClient): Promise<string[]> {
  const goalIds: string[] = [];
  for (const status of NOT_FINAL) {
    let cursor: string | undefined;
    do {
      const page = await client.listGoals({ status, ...(cursor === undefined ? {} : { cursor }) });
      goalIds.push(...page.items.map((goal) => goal.goalId));
      cursor = page.cursor;
    } while (cursor !== undefined);
  }
  return goalIds;
}
