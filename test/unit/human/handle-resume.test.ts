import { describe, expect, it } from "vitest";
import { pause } from "../../../lambdas/core/goal/goal-lifecycle";
import { handleResumeRequested } from "../../../lambdas/core/human/handle-resume";
import type { ResumeRequestedDetail } from "../../../lambdas/core/human/human-input-events";
import { loadGoal } from "../../../lambdas/core/loop/load-goal";
import { sequentialRunIds } from "../../../lambdas/core/loop/run-ids";
import type { StartRun } from "../../../lambdas/core/ports/run-control";
import { createGoal } from "../loop/support";
import {
  AT,
  changeGoal,
  clock,
  eventTypes,
  REACT_ARN,
  recordingRunControl,
  STATE_MACHINE_ARNS,
  storedGoal,
  suiteGoalTable,
} from "./control-support";

const resumeOf = (goalId: string): ResumeRequestedDetail => ({
  goalId,
  requestedBy: "ana",
  channel: "api",
  requestedAt: AT,
});

describe("handleResumeRequested", () => {
  const table = suiteGoalTable();

  const ports = (startRun: StartRun) => ({
    goals: table.adapters.goals,
    startRun,
    stateMachineArns: STATE_MACHINE_ARNS,
    ids: sequentialRunIds,
    now: clock,
  });

  async function pausedGoal() {
    const goal = await createGoal(table);
    await changeGoal(table, goal.goalId, (record) =>
      pause(record, { kind: "no_progress", detail: "maxNoProgressCycles", message: "3 cycles" }, clock()),
    );
    return goal;
  }

  it("resumes a paused goal as run r2 and starts that run's execution", async () => {
    // Prepare
    const goal = await pausedGoal();
    const start = recordingRunControl();

    // Act
    const result = await handleResumeRequested(ports(start.control), resumeOf(goal.goalId));

    // Assess
    expect(result).toEqual({ outcome: "resumed", goalId: goal.goalId, runId: "r2", previousRunId: "r1" });
    const stored = await storedGoal(table, goal.goalId);
    expect(stored).toMatchObject({
      status: "running",
      runId: "r2",
      previousRunId: "r1",
      noProgressCycles: 0,
    });
    // A goal created without runsOn (as before versions) resumes on its pattern's live alias.
    expect(start.calls).toEqual([{ stateMachineArn: `${REACT_ARN}:live`, goalId: goal.goalId, runId: "r2" }]);
    expect((await eventTypes(table, goal.goalId)).at(-1)).toBe("goal.resumed");
  });

  it("answers a resume for a goal that is not paused with the reason, changing nothing", async () => {
    // Prepare
    const goal = await createGoal(table);
    await loadGoal({ goals: table.adapters.goals, now: clock }, goal);
    const start = recordingRunControl();
    const eventsBefore = await eventTypes(table, goal.goalId);

    // Act
    const result = await handleResumeRequested(ports(start.control), resumeOf(goal.goalId));

    // Assess
    expect(result).toEqual({
      outcome: "ignored",
      goalId: goal.goalId,
      reason: "goal is running; resume needs paused",
    });
    expect(start.calls).toEqual([]);
    expect(await eventTypes(table, goal.goalId)).toEqual(eventsBefore);
  });

  it("treats a duplicate after the new run loaded as late: no third run", async () => {
    // Prepare
    const goal = await pausedGoal();
    const start = recordingRunControl();
    await handleResumeRequested(ports(start.control), resumeOf(goal.goalId));
    await loadGoal({ goals: table.adapters.goals, now: clock }, { goalId: goal.goalId, runId: "r2" });

    // Act
    const duplicate = await handleResumeRequested(ports(start.control), resumeOf(goal.goalId));

    // Assess
    expect(duplicate.outcome).toBe("ignored");
    expect((await storedGoal(table, goal.goalId)).runId).toBe("r2");
    expect(start.calls).toHaveLength(1);
  });

  it("restarts the same run when the redelivered event finds it committed but never started", async () => {
    // Prepare: the first start fails, so the event handler throws and EventBridge redelivers
    const goal = await pausedGoal();
    const start = recordingRunControl(1);
    await expect(handleResumeRequested(ports(start.control), resumeOf(goal.goalId))).rejects.toThrow();

    // Act
    const redelivered = await handleResumeRequested(ports(start.control), resumeOf(goal.goalId));

    // Assess
    expect(redelivered).toMatchObject({ outcome: "resumed", runId: "r2" });
    expect(start.calls.map((call) => call.runId)).toEqual(["r2", "r2"]);
    const events = await eventTypes(table, goal.goalId);
    expect(events.filter((type) => type === "goal.resumed")).toHaveLength(1);
  });

  it("ignores a resume for an unknown goal", async () => {
    // Prepare
    const start = recordingRunControl();

    // Act
    const result = await handleResumeRequested(ports(start.control), resumeOf("g-nope"));

    // Assess
    expect(result).toMatchObject({ outcome: "ignored", reason: "goal 'g-nope' does not exist" });
    expect(start.calls).toEqual([]);
  });
});
