import { describe, expect, it } from "vitest";
import { pause } from "../../../lambdas/core/goal/goal-lifecycle";
import { handleRetryRequested } from "../../../lambdas/core/human/handle-retry";
import type { RetryRequestedDetail } from "../../../lambdas/core/human/human-input-events";
import { recordFailure } from "../../../lambdas/core/loop/record-failure";
import { sequentialRunIds } from "../../../lambdas/core/loop/run-ids";
import type { RedriveRun, RunRef } from "../../../lambdas/core/ports/run-control";
import {
  crashAfterCheckpoint,
  createGoal,
  InjectedCrash,
  ReactLoopDriver,
  ScriptedModel,
  says,
  writes,
} from "../loop/support";
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

const retryOf = (goalId: string): RetryRequestedDetail => ({
  goalId,
  requestedBy: "ana",
  channel: "api",
  requestedAt: AT,
});

const FAILURE_OPTIONS = { fatalErrorNames: new Set<string>(), terminatingErrorNames: new Set<string>() };

/** A redrive port that answers as told and records what it was asked. */
function scriptedRedrive(answers: { redrivable: boolean; redriven: boolean }) {
  const asked: string[] = [];
  const redrive: RedriveRun = {
    isRedrivable: async (run) => {
      asked.push(`describe ${run.runId}`);
      return answers.redrivable;
    },
    redrive: async (run) => {
      asked.push(`redrive ${run.runId}`);
      return answers.redriven;
    },
  };
  return { asked, redrive };
}

describe("handleRetryRequested", () => {
  const table = suiteGoalTable();

  function ports(
    start: (run: RunRef) => Promise<void>,
    options: { redriveRun?: RedriveRun; live?: readonly string[] } = {},
  ) {
    return {
      goals: table.adapters.goals,
      startRun: start,
      stateMachineArns: STATE_MACHINE_ARNS,
      ids: sequentialRunIds,
      now: clock,
      runIsLive: async (run: RunRef) => (options.live ?? []).includes(run.runId),
      ...(options.redriveRun ? { redriveRun: options.redriveRun } : {}),
    };
  }

  /**
   * A goal whose run r1 paid for its reason call in iteration 0, then failed before it acted (the
   * step crashed after the checkpoint until the retries were used up, and RecordFailure ran).
   */
  async function failedAfterAPaidCall() {
    const goal = await createGoal(table);
    const model = new ScriptedModel({ reason: [writes("out/haiku.md", "autumn"), says("done")] });
    const loop = new ReactLoopDriver(table, model);
    const loaded = await loop.load(goal.goalId);
    const crashing = { ...loop.ports(crashAfterCheckpoint(table.adapters.goals, "reason")) };
    await expect(
      import("../../../lambdas/core/patterns/react/verify-and-reason").then(({ verifyAndReason }) =>
        verifyAndReason(crashing, loop.settings, loaded),
      ),
    ).rejects.toBeInstanceOf(InjectedCrash);
    const failed = await recordFailure({ goals: table.adapters.goals, now: clock }, FAILURE_OPTIONS, {
      ...loaded,
      error: { Error: "Lambda.Unknown", Cause: "the sandbox died" },
    });
    if (failed.outcome !== "failed") throw new Error(`expected a failed goal, got ${failed.outcome}`);
    return { goal, loop, model };
  }

  it("retries a failed goal in a new run that takes over its iteration, paying for no call twice", async () => {
    // Prepare
    const { goal, loop, model } = await failedAfterAPaidCall();
    const start = recordingRunControl();

    // Act
    const result = await handleRetryRequested(ports(start.control), retryOf(goal.goalId));
    const answers = await loop.run(goal.goalId, "r2");

    // Assess
    expect(result).toEqual({ outcome: "new_run", goalId: goal.goalId, runId: "r2" });
    // A goal created without runsOn (as before versions) gets its new run on the live alias.
    expect(start.calls).toEqual([{ stateMachineArn: `${REACT_ARN}:live`, goalId: goal.goalId, runId: "r2" }]);
    expect(answers.at(-1)?.next).toBe("completed");
    // The one reason call, paid by r1 and reused by r2: the retry pays for nothing again.
    expect(model.requests.map((request) => request.call)).toEqual([0]);
    const final = await storedGoal(table, goal.goalId);
    expect(final.usage.modelCalls).toBe(1);
    expect(await eventTypes(table, goal.goalId)).toContain("goal.retried");
  });

  it("supersedes the approval a failed wait left pending, so only the retried run's request can be decided", async () => {
    // Prepare: r1 parks on an approval, then its execution fails (the wait's task token dies with it)
    const goal = await createGoal(table);
    const approval = aPendingApproval(goal.goalId, { runId: "r1" });
    const other = aPendingApproval((await createGoal(table)).goalId);
    await table.adapters.goals.putApproval(other);
    await parkOnApproval(table, goal.goalId, approval);
    const failed = await recordFailure({ goals: table.adapters.goals, now: clock }, FAILURE_OPTIONS, {
      goalId: goal.goalId,
      runId: "r1",
      error: { Error: "States.Timeout", Cause: "the run was stopped" },
    });
    const start = recordingRunControl();

    // Act
    const result = await handleRetryRequested(ports(start.control), retryOf(goal.goalId));

    // Assess
    expect(failed.outcome).toBe("failed");
    expect(result).toEqual({ outcome: "new_run", goalId: goal.goalId, runId: "r2" });
    expect((await table.adapters.goals.getApproval(approval.approvalId))?.status).toBe("superseded");
    expect((await table.adapters.goals.getApproval(other.approvalId))?.status).toBe("pending");
  });

  it("redrives the failed run's execution inside the redrive window: same run, nothing started", async () => {
    // Prepare
    const { goal } = await failedAfterAPaidCall();
    const start = recordingRunControl();
    const { asked, redrive } = scriptedRedrive({ redrivable: true, redriven: true });

    // Act
    const result = await handleRetryRequested(
      ports(start.control, { redriveRun: redrive }),
      retryOf(goal.goalId),
    );

    // Assess
    expect(result).toEqual({ outcome: "redriven", goalId: goal.goalId, runId: "r1" });
    expect(asked).toEqual(["describe r1", "redrive r1"]);
    expect(start.calls).toEqual([]);
    expect(await storedGoal(table, goal.goalId)).toMatchObject({
      status: "running",
      runId: "r1",
      redriving: "r1",
      stopReason: null,
    });
  });

  it("takes a new run when the redrive window closes between the look and the redrive", async () => {
    // Prepare
    const { goal } = await failedAfterAPaidCall();
    const start = recordingRunControl();
    const { redrive } = scriptedRedrive({ redrivable: true, redriven: false });

    // Act
    const result = await handleRetryRequested(
      ports(start.control, { redriveRun: redrive }),
      retryOf(goal.goalId),
    );

    // Assess
    expect(result).toEqual({ outcome: "new_run", goalId: goal.goalId, runId: "r2" });
    expect(start.calls.map((run) => run.runId)).toEqual(["r2"]);
    expect(await storedGoal(table, goal.goalId)).toMatchObject({ status: "running", runId: "r2" });
  });

  it("starts the run again for a duplicate event after a start that failed, and ignores anything but failed", async () => {
    // Prepare
    const { goal } = await failedAfterAPaidCall();
    const paused = await createGoal(table);
    await changeGoal(table, paused.goalId, (record) =>
      pause(record, { kind: "no_progress", detail: "maxNoProgressCycles", message: "3 cycles" }, clock()),
    );
    const start = recordingRunControl(1);

    // Act
    const first = handleRetryRequested(ports(start.control), retryOf(goal.goalId));
    await expect(first).rejects.toMatchObject({ name: "ExecutionStartThrottled" });
    const again = await handleRetryRequested(ports(start.control), retryOf(goal.goalId));
    const onPaused = await handleRetryRequested(ports(start.control), retryOf(paused.goalId));

    // Assess
    expect(again).toMatchObject({ outcome: "new_run", runId: "r3" });
    expect(onPaused).toEqual({
      outcome: "ignored",
      goalId: paused.goalId,
      reason: "goal is paused; retry needs failed",
    });
    expect(start.calls.map((run) => run.runId)).toEqual(["r2", "r3"]);
  });
});
