import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cancel } from "../../../lambdas/core/goal/goal-lifecycle";
import { decideApprovalFromDoor } from "../../../lambdas/core/human/decide-approval";
import type { HumanInputEvent } from "../../../lambdas/core/human/human-input-events";
import { handleApprovalDecided } from "../../../lambdas/core/human/resume-handler";
import { requestApproval } from "../../../lambdas/core/loop/gates/request-approval";
import { reattachGoal } from "../../../lambdas/core/loop/reattach-goal";
import type { StepResult } from "../../../lambdas/core/loop/step-result";
import { readGoal, updateGoal } from "../../../lambdas/core/loop/update-goal";
import type { TaskCallback } from "../../../lambdas/core/ports/task-callback";
import {
  calls,
  createGoal,
  type GoalTable,
  notifyOpsSpec,
  ReactLoopDriver,
  reactSpec,
  ScriptedModel,
  says,
  startGoalTable,
} from "./support";

class RecordingCallback implements TaskCallback {
  readonly answers: { token: string; output: StepResult }[] = [];
  async succeed(token: string, output: StepResult): Promise<void> {
    this.answers.push({ token, output });
  }
}

const notifySpec = notifyOpsSpec();

describe("re-attaching a goal whose run died", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });
  afterAll(() => table.stop());

  function awaitApproval(loop: ReactLoopDriver, position: StepResult, token: string) {
    if (position.next !== "approval" && position.next !== "limit_decision") {
      throw new Error(`expected a gate, got ${position.next}`);
    }
    return requestApproval(
      {
        goals: table.adapters.goals,
        outbox: table.adapters.outbox,
        callback: new RecordingCallback(),
        now: loop.now,
        newApprovalId: () => `ap-${token}`,
      },
      { approvalTimeoutSeconds: 3600 },
      { ...position, next: position.next, taskToken: token },
    );
  }

  it("sends a waiting goal of a new run back to its pending approval, which then runs the call once", async () => {
    // Prepare
    const goal = await createGoal(table, notifySpec);
    const model = new ScriptedModel({
      reason: [calls("notify", { channel: "ops", message: "Release 1.2 is out" }), says("done")],
    });
    const loop = new ReactLoopDriver(table, model);
    const first = (await loop.run(goal.goalId)).at(-1);
    if (!first) throw new Error("the first run answered nothing");
    const requested = await awaitApproval(loop, first, "token-of-run-1");
    if (requested.outcome !== "requested") throw new Error("no approval requested");

    // Act
    const reattached = await reattachGoal({ goals: table.adapters.goals, now: loop.now }, goal.goalId);
    const loaded = await loop.load(goal.goalId, "r2");
    const reused = await awaitApproval(loop, loaded, "token-of-run-2");
    const stored = await table.adapters.goals.getApproval(requested.approvalId);
    const published: HumanInputEvent[] = [];
    await decideApprovalFromDoor(
      {
        goals: table.adapters.goals,
        publisher: { publish: async (event) => void published.push(event) },
        now: loop.now,
      },
      { approvalId: requested.approvalId, decision: "approve", decidedBy: "ana", channel: "api" },
    );
    const callback = new RecordingCallback();
    const event = published[0];
    if (event?.detailType !== "Approval Decided") throw new Error("no decision published");
    await handleApprovalDecided({ goals: table.adapters.goals, callback, now: loop.now }, event.detail);
    const wake = callback.answers[0]?.output;
    if (!wake) throw new Error("the token was not answered");
    const acted = await loop.act(wake);
    const final = await loop.verifyAndReason(acted);

    // Assess
    expect(reattached).toEqual({
      goalId: goal.goalId,
      runId: "r2",
      previousRunId: "r1",
      status: "waiting",
      pattern: "react",
      approvalId: requested.approvalId,
    });
    expect(loaded).toMatchObject({ runId: "r2", next: "approval" });
    expect(reused).toEqual({ outcome: "reused", approvalId: requested.approvalId });
    expect(stored).toMatchObject({ status: "pending", taskToken: "token-of-run-2" });
    expect(callback.answers[0]).toMatchObject({
      token: "token-of-run-2",
      output: { runId: "r2", next: "act" },
    });
    expect(final.next).toBe("completed");
    const notified = (await table.adapters.outbox.listMessages(goal.goalId)).filter(
      (m) => m.channel === "ops",
    );
    expect(notified).toHaveLength(1);
    const types = (await loop.events(goal.goalId)).map((e) => e.type);
    expect(types).toContain("run.reattached");
  });

  it("restarts a running goal's loop in a new run and leaves a finished goal alone", async () => {
    // Prepare
    const running = await createGoal(table, reactSpec());
    const done = await createGoal(table, reactSpec());
    const loop = new ReactLoopDriver(table, new ScriptedModel({ reason: [says("nothing to do")] }));
    const ports = { goals: table.adapters.goals, now: loop.now };
    const versioned = await readGoal(table.adapters.goals, done.goalId);
    await updateGoal(table.adapters.goals, versioned, (record) =>
      cancel(record, "ana", "not needed", loop.now()),
    );

    // Act
    const reattached = await reattachGoal(ports, running.goalId);
    const loaded = await loop.load(running.goalId, "r2");
    const stale = await loop.load(running.goalId, "r1");
    const finished = await reattachGoal(ports, done.goalId);

    // Assess
    expect(reattached).toMatchObject({ runId: "r2", previousRunId: "r1", status: "running" });
    expect(loaded).toMatchObject({ runId: "r2", iteration: 0, next: "verify" });
    expect(stale.next).toBe("stop");
    expect(finished).toBeUndefined();
    expect((await loop.goal(done.goalId)).runId).toBe("r1");
  });

  it("sends a goal waiting on a limit decision back to that decision in its new run", async () => {
    // Prepare
    const goal = await createGoal(table, reactSpec({ limits: { maxSteps: 1 } }));
    const loop = new ReactLoopDriver(
      table,
      new ScriptedModel({ reason: [calls("workspace_write", { path: "a.md", content: "no" })] }),
    );
    const first = (await loop.run(goal.goalId)).at(-1);
    if (!first) throw new Error("the first run answered nothing");
    const requested = await awaitApproval(loop, first, "limit-token-1");
    if (requested.outcome !== "requested") throw new Error("no decision asked");

    // Act
    await reattachGoal({ goals: table.adapters.goals, now: loop.now }, goal.goalId);
    const loaded = await loop.load(goal.goalId, "r2");
    const reused = await awaitApproval(loop, loaded, "limit-token-2");

    // Assess
    expect(first.next).toBe("limit_decision");
    expect(loaded).toMatchObject({ runId: "r2", next: "limit_decision" });
    expect(reused).toEqual({ outcome: "reused", approvalId: requested.approvalId });
    expect(await table.adapters.goals.getApproval(requested.approvalId)).toMatchObject({
      status: "pending",
      taskToken: "limit-token-2",
    });
  });
});
