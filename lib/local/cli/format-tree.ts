import type { GoalSnapshot } from "../../../lambdas/core/goal/goal-record";
import type { GoalLoopsClient } from "../../client/index";

/** How deep `status` follows sub-goals: the configuration allows at most 10 levels. */
const MAX_TREE_DEPTH = 10;

/** One goal of the tree: status, pattern, checks, cost, objective; what it waits for when it waits. */
function treeLine(snapshot: GoalSnapshot): string {
  const checks = snapshot.satisfiedChecks.length + snapshot.unsatisfiedChecks.length;
  const objective =
    snapshot.objective.length > 60 ? `${snapshot.objective.slice(0, 57)}...` : snapshot.objective;
  const waits =
    snapshot.status === "waiting" && snapshot.waitingFor && snapshot.waitingFor.kind !== "subgoal"
      ? ` (waits: ${snapshot.waitingFor.reason})`
      : "";
  return `${snapshot.goalId} ${snapshot.status} ${snapshot.pattern} · ${snapshot.satisfiedChecks.length}/${checks} checks · $${snapshot.usage.costUsd.toFixed(4)} · ${objective}${waits}`;
}

/**
 * A goal and its sub-goals as an indented tree (`goal-loops status`), each child read from the API
 * as it is now: the goal's own line first, then each child's under it, and theirs under them.
 */
export async function formatGoalTree(
  client: Pick<GoalLoopsClient, "listChildren">,
  root: GoalSnapshot,
): Promise<string[]> {
  const lines = [treeLine(root)];
  const walk = async (goal: GoalSnapshot, prefix: string, depth: number): Promise<void> => {
    if ((goal.children ?? []).length === 0 || depth >= MAX_TREE_DEPTH) return;
    const { items } = await client.listChildren(goal.goalId);
    for (const [index, child] of items.entries()) {
      const last = index === items.length - 1;
      lines.push(`${prefix}${last ? "└─ " : "├─ "}${treeLine(child)}`);
      await walk(child, `${prefix}${last ? "   " : "│  "}`, depth + 1);
    }
  };
  await walk(root, "  ", 0);
  return lines;
}

/** The latest compensation saga in a line or two: how far it is, and what it could not undo. */
export function formatCompensation(snapshot: GoalSnapshot): string[] {
  const saga = snapshot.compensation;
  if (!saga) return [];
  const lines = [
    `  compensation (${saga.trigger}, steps ${saga.fromStep}-${saga.toStep}): ${saga.status}, ${saga.undone} call(s) undone`,
  ];
  for (const call of saga.notCompensable)
    lines.push(`    not compensable: ${call.tool} at step ${call.step} (${call.reason})`);
  for (const call of saga.failed)
    lines.push(`    not undone: ${call.tool} at step ${call.step} (${call.reason})`);
  return lines;
}
