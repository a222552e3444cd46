import { afterAll, beforeAll } from "vitest";
import type { GoalChange } from "../../../lambdas/core/goal/goal-change";
import { waitFor } from "../../../lambdas/core/goal/goal-lifecycle";
import type { GoalRecord } from "../../../lambdas/core/goal/goal-record";
import type { Approval } from "../../../lambdas/core/ports/goal-store";
import type { RunRef } from "../../../lambdas/core/ports/run-control";
import { type GoalTable, startGoalTable } from "../loop/support";

export const REACT_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:goal-loops-react";
export const STATE_MACHINE_ARNS = { react: REACT_ARN } as const;
export const AT = "2026-03-01T10:00:00.000Z";
export const clock = () => new Date(AT);

/** A goal table started before the enclosing suite's tests and stopped after them. */
export function suiteGoalTable(): GoalTable {
  let started: GoalTable | undefined;
  const current = (): GoalTable => {
    if (!started) throw new Error("the suite's goal table starts in beforeAll");
    return started;
  };
  beforeAll(async () => {
    started = await startGoalTable();
  });
  afterAll(async () => {
    await started?.stop();
  });
  return {
    get adapters() {
      return current().adapters;
    },
    stop: () => current().stop(),
  };
}

/** Applies a core change to the stored goal, as another writer would. */
export async function changeGoal(
  table: GoalTable,
  goalId: string,
  change: (record: GoalRecord) => GoalChange,
): Promise<GoalRecord> {
  const stored = await table.adapters.goals.getGoal(goalId);
  if (!stored) throw new Error(`goal ${goalId} vanished`);
  const next = change(stored.record);
  return (await table.adapters.goals.commit(next.record, stored.version, next.events)).record;
}

/** Stores a pending approval and parks the goal waiting for it, as RequestApproval does. */
export async function parkOnApproval(table: GoalTable, goalId: string, approval: Approval): Promise<void> {
  await table.adapters.goals.putApproval(approval);
  const ids = { approvalId: approval.approvalId };
  await changeGoal(table, goalId, (record) =>
    waitFor(
      record,
      { kind: "approval", reason: "notify", ...ids },
      { eventType: "Approval Decided", revision: 1, ...ids },
      clock(),
    ),
  );
}

export async function storedGoal(table: GoalTable, goalId: string): Promise<GoalRecord> {
  const stored = await table.adapters.goals.getGoal(goalId);
  if (!stored) throw new Error(`goal ${goalId} vanished`);
  return stored.record;
}

export async function eventTypes(table: GoalTable, goalId: string): Promise<string[]> {
  const { items } = await table.adapters.goals.listEvents(goalId, { limit: 1000 });
  return items.map((event) => event.type);
}

/** A StartRun or StopRun that records its calls and fails the first `failures` of them. */
export function recordingRunControl(failures = 0) {
  const calls: (RunRef & { cause?: string })[] = [];
  let left = failures;
  const control = async (run: RunRef & { cause?: string }) => {
    calls.push(run);
    if (left > 0) {
      left -= 1;
      throw Object.assign(new Error("Step Functions unavailable"), { name: "ExecutionStartThrottled" });
    }
  };
  return { calls, control };
}
