import { describe, expect, it } from "vitest";
import { forkPointOf } from "../../../lambdas/core/fork/fork-point";
import type { GoalRecord } from "../../../lambdas/core/goal/goal-record";
import type { PlanState } from "../../../lambdas/core/goal/plan";
import { STEP_STATE_FORMAT, type StepState } from "../../../lambdas/core/ports/goal-history";
import { newGoal } from "../loop/support";

/** A plan of three steps; a batch of `b` and `c` of which only `b` was acted on. */
function planInBatch(): PlanState {
  const step = (id: string, status: "done" | "pending") => ({
    id,
    action: `do ${id}`,
    tool: "workspace_write",
    dependsOn: [],
    expected: `${id} done`,
    completion: { text: `${id} is done` },
    critical: true,
    status,
    attempts: status === "done" ? 1 : 0,
  });
  return {
    version: 1,
    revisionSeen: 1,
    steps: [step("a", "done"), step("b", "done"), step("c", "pending")],
    batch: {
      version: 1,
      runId: "r1",
      iteration: 1,
      steps: [
        { stepId: "b", ordinal: 2, call: 1, counted: true },
        { stepId: "c", ordinal: 3, call: 2, counted: true },
      ],
    },
    needsApproval: false,
    requests: 1,
    served: 1,
    history: [],
  };
}

describe("forkPointOf", () => {
  it("refuses a step inside a batch of plan steps that did not finish, naming atStep and the steps left", async () => {
    // Prepare: the state after step 2, with step c of the batch still to act on.
    const { record: created } = newGoal(undefined, { pattern: "plan_execute" });
    const record: GoalRecord = { ...created, steps: 2, planState: planInBatch() };
    const state: StepState = {
      format: STEP_STATE_FORMAT,
      goalId: record.goalId,
      step: 2,
      record,
      calls: { plan: 1, execute: 3 },
      workspace: [],
      at: record.updatedAt,
    };
    const ports = {
      goals: { getGoal: async () => undefined },
      history: { getStepState: async () => ({ kind: "state" as const, state }) },
    };

    // Act
    const refused = forkPointOf(ports, record, 2);

    // Assess
    await expect(refused).rejects.toMatchObject({
      name: "ValidationError",
      issues: [
        {
          path: "atStep",
          message: expect.stringMatching(
            /inside a batch of plan steps that did not finish \(c still to act on\)/,
          ),
        },
      ],
    });
  });

  it("refuses a step after which a sub-goal the goal started was still running", async () => {
    // Prepare
    const { record: created } = newGoal();
    const record: GoalRecord = {
      ...created,
      steps: 1,
      subgoals: [
        {
          callKey: "k",
          toolUseId: "t-1",
          runId: "r1",
          iteration: 0,
          status: "running",
          goalId: "g-child",
          objective: "a child",
          startedAt: created.createdAt,
        },
      ],
    };
    const state: StepState = {
      format: STEP_STATE_FORMAT,
      goalId: record.goalId,
      step: 1,
      record,
      calls: { reason: 1 },
      workspace: [],
      at: record.updatedAt,
    };
    const ports = {
      goals: { getGoal: async () => undefined },
      history: { getStepState: async () => ({ kind: "state" as const, state }) },
    };

    // Act + Assess
    await expect(forkPointOf(ports, record, 1)).rejects.toMatchObject({
      issues: [{ path: "atStep", message: expect.stringMatching(/sub-goal g-child was still running/) }],
    });
  });

  it("refuses a shared step of a fork whose source is gone, naming atStep", async () => {
    // Prepare: a fork after step 2 of a goal the store no longer has; its own history starts at 2.
    const { record: created } = newGoal();
    const fork: GoalRecord = {
      ...created,
      steps: 3,
      spec: { ...created.spec, forkedFrom: { goalId: "g-0000000000000000000000gone", step: 2 } },
    };
    const ports = {
      goals: { getGoal: async () => undefined },
      history: { getStepState: async () => undefined },
    };

    // Act
    const refused = forkPointOf(ports, fork, 1);

    // Assess
    await expect(refused).rejects.toMatchObject({
      issues: [
        {
          path: "atStep",
          message: expect.stringMatching(/shared with goal g-0000000000000000000000gone, which is gone/),
        },
      ],
    });
  });
});
