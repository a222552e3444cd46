import { describe, expect, it } from "vitest";
import { pause, terminate } from "../../../lambdas/core/goal/goal-lifecycle";
import { handleCancelRequested } from "../../../lambdas/core/human/handle-cancel";
import type { CancelRequestedDetail } from "../../../lambdas/core/human/human-input-events";
import type { StopRun } from "../../../lambdas/core/ports/run-control";
import { createGoal } from "../loop/support";
import {
  AT,
  changeGoal,
  clock,
  eventTypes,
  parkOnApproval,
  REACT_ARN,
  recordingRunControl,
  STATE_MACHINE_ARNS,
  storedGoal,
  suiteGoalTable,
} from "./control-support";
import { aPendingApproval } from "./support";

const cancelOf = (goalId: string, reason?: string): CancelRequestedDetail => ({
  goalId,
  requestedBy: "ana",
  channel: "api",
  requestedAt: AT,
  ...(reason === undefined ? {} : { reason }),
});

describe("handleCancelRequested", () => {
  const table = suiteGoalTable();

  const ports = (stopRun: StopRun) => ({
    goals: table.adapters.goals,
    stopRun,
    stateMachineArns: STATE_MACHINE_ARNS,
    now: clock,
  });

  it("cancels a running goal, stops its run's execution and records who and why", async () => {
    // Prepare
    const goal = await createGoal(table);
    const stop = recordingRunControl();

    // Act
    const result = await handleCancelRequested(ports(stop.control), cancelOf(goal.goalId, "wrong goal"));

    // Assess
    expect(result).toEqual({
      outcome: "cancelled",
      goalId: goal.goalId,
      runId: "r1",
      supersededApprovals: [],
    });
    const stored = await storedGoal(table, goal.goalId);
    expect(stored.status).toBe("cancelled");
    expect(stored.stopReason).toMatchObject({ kind: "cancelled", detail: "ana", message: "wrong goal" });
    expect(stop.calls).toEqual([
      { stateMachineArn: REACT_ARN, goalId: goal.goalId, runId: "r1", cause: "goal cancelled: wrong goal" },
    ]);
    expect((await eventTypes(table, goal.goalId)).at(-1)).toBe("goal.cancelled");
  });

  it("cancels a waiting goal and marks its pending approval superseded", async () => {
    // Prepare
    const goal = await createGoal(table);
    const approval = aPendingApproval(goal.goalId);
    const other = aPendingApproval((await createGoal(table)).goalId);
    await table.adapters.goals.putApproval(other);
    await parkOnApproval(table, goal.goalId, approval);
    const stop = recordingRunControl();

    // Act
    const result = await handleCancelRequested(ports(stop.control), cancelOf(goal.goalId));

    // Assess
    expect(result).toMatchObject({ outcome: "cancelled", supersededApprovals: [approval.approvalId] });
    expect((await table.adapters.goals.getApproval(approval.approvalId))?.status).toBe("superseded");
    expect((await table.adapters.goals.getApproval(other.approvalId))?.status).toBe("pending");
    expect((await storedGoal(table, goal.goalId)).status).toBe("cancelled");
  });

  it("cancels a paused goal", async () => {
    // Prepare
    const goal = await createGoal(table);
    await changeGoal(table, goal.goalId, (record) =>
      pause(record, { kind: "no_progress", detail: "maxNoProgressCycles", message: "3" }, clock()),
    );

    // Act
    const result = await handleCancelRequested(ports(recordingRunControl().control), cancelOf(goal.goalId));

    // Assess
    expect(result.outcome).toBe("cancelled");
    expect((await storedGoal(table, goal.goalId)).status).toBe("cancelled");
  });

  it("heals on redelivery: a cancelled goal's execution is stopped again, with no second event", async () => {
    // Prepare: the first stop fails after the cancel was committed
    const goal = await createGoal(table);
    const stop = recordingRunControl(1);
    await expect(handleCancelRequested(ports(stop.control), cancelOf(goal.goalId))).rejects.toThrow();

    // Act
    const redelivered = await handleCancelRequested(ports(stop.control), cancelOf(goal.goalId));

    // Assess
    expect(redelivered).toMatchObject({ outcome: "already_cancelled", runId: "r1" });
    expect(stop.calls).toHaveLength(2);
    const events = await eventTypes(table, goal.goalId);
    expect(events.filter((type) => type === "goal.cancelled")).toHaveLength(1);
  });

  it("leaves a terminated goal alone and says why", async () => {
    // Prepare
    const goal = await createGoal(table);
    await changeGoal(table, goal.goalId, (record) =>
      terminate(record, { kind: "limit", detail: "maxSteps", message: "limit" }, clock()),
    );
    const stop = recordingRunControl();

    // Act
    const result = await handleCancelRequested(ports(stop.control), cancelOf(goal.goalId));

    // Assess
    expect(result).toEqual({
      outcome: "ignored",
      goalId: goal.goalId,
      reason: "goal is terminated; cancel needs a goal that is not final",
    });
    expect(stop.calls).toEqual([]);
    expect((await storedGoal(table, goal.goalId)).status).toBe("terminated");
  });
});
