import { describe, expect, it } from "vitest";
import type { GoalRecord, GoalSnapshot } from "../../../lambdas/core/goal/goal-record";
import { toSnapshot } from "../../../lambdas/core/goal/snapshot";
import { formatCompensation, formatGoalTree } from "../../../lib/local/cli/format-tree";
import { aGoalRecord } from "../../support/goal-record-builder";

/** A parent with two children, the first of which has a child of its own. */
function family() {
  const grandchild = aGoalRecord({ goalId: "g-grandchild", status: "running" });
  const entry = (goalId: string) => ({
    callKey: goalId,
    toolUseId: goalId,
    runId: "r1",
    iteration: 0,
    status: "running" as const,
    goalId,
    objective: goalId,
    startedAt: "2026-01-01T00:00:00.000Z",
  });
  const first = aGoalRecord({ goalId: "g-first", subgoals: [entry("g-grandchild")] });
  const second: GoalRecord = {
    ...aGoalRecord({ goalId: "g-second" }),
    status: "waiting",
    activeTask: null,
    waitingFor: { kind: "approval", approvalId: "ap-1", reason: "approve before it runs: notify #ops" },
    resumeCondition: { eventType: "Approval Decided", approvalId: "ap-1", revision: 1 },
  };
  const parent = aGoalRecord({ goalId: "g-parent", subgoals: [entry("g-first"), entry("g-second")] });
  const records = new Map([first, second, grandchild].map((record) => [record.goalId, record]));
  const childrenOf = (record: GoalRecord) =>
    (record.subgoals ?? []).flatMap((item) => records.get(item.goalId ?? "") ?? []);
  const client = {
    async listChildren(goalId: string): Promise<{ items: GoalSnapshot[] }> {
      const record = goalId === "g-parent" ? parent : records.get(goalId);
      const children = record ? childrenOf(record) : [];
      return { items: children.map((child) => toSnapshot(child, { children: childrenOf(child) })) };
    },
  };
  return { client, root: toSnapshot(parent, { children: childrenOf(parent) }) };
}

describe("goal-loops status: the tree of sub-goals", () => {
  it("prints the goal, then each child under it, and theirs under them, with what a waiting one waits for", async () => {
    // Prepare
    const { client, root } = family();

    // Act
    const lines = await formatGoalTree(client, root);

    // Assess
    expect(lines.map((line) => line.replace(/ · .*?(?= \(waits|$)/, ""))).toEqual([
      "g-parent running react",
      "  ├─ g-first running react",
      "  │  └─ g-grandchild running react",
      "  └─ g-second waiting react (waits: approve before it runs: notify #ops)",
    ]);
  });

  it("names the calls a saga could not undo", () => {
    // Prepare
    const record = aGoalRecord({
      saga: {
        sagaId: "s1",
        trigger: "corrective",
        fromStep: 2,
        toStep: 4,
        status: "completed",
        processed: 5,
        undone: 3,
        notCompensable: [
          { step: 3, tool: "notify", toolUseId: "t1", reason: "notify declares no compensator" },
        ],
        failed: [],
        startedAt: "2026-01-01T00:00:00.000Z",
      },
    });

    // Act + Assess
    expect(formatCompensation(toSnapshot(record))).toEqual([
      "  compensation (corrective, steps 2-4): completed, 3 call(s) undone",
      "    not compensable: notify at step 3 (notify declares no compensator)",
    ]);
  });
});
