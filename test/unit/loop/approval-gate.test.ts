import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideApprovalFromDoor } from "../../../lambdas/core/human/decide-approval";
import type { HumanInputEvent } from "../../../lambdas/core/human/human-input-events";
import { handleApprovalDecided } from "../../../lambdas/core/human/resume-handler";
import { approvalExpired } from "../../../lambdas/core/loop/gates/approval-expired";
import { requestApproval } from "../../../lambdas/core/loop/gates/request-approval";
import type { StepResult } from "../../../lambdas/core/loop/step-result";
import { type TaskCallback, TaskTokenGoneError } from "../../../lambdas/core/ports/task-callback";
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
  steppingClock,
} from "./support";

const TOKEN = "secret-task-token-for-tests";

/** Records SendTaskSuccess answers; `gone` makes every send fail as a timed-out wait. */
class RecordingCallback implements TaskCallback {
  readonly answers: { token: string; output: StepResult }[] = [];
  constructor(private readonly gone = false) {}
  async succeed(token: string, output: StepResult): Promise<void> {
    if (this.gone) throw new TaskTokenGoneError("TaskTimedOut");
    this.answers.push({ token, output });
  }
}

const notifySpec = notifyOpsSpec({ tools: ["notify", "workspace_write"] });

describe("the approval gate of the ReAct loop", () => {
  let table: GoalTable;
  let ids = 0;

  beforeAll(async () => {
    table = await startGoalTable();
  });
  afterAll(() => table.stop());

  async function untilApproval(loop: ReactLoopDriver, goalId: string) {
    const answers = await loop.run(goalId);
    const last = answers.at(-1);
    if (last?.next !== "approval" && last?.next !== "limit_decision") {
      throw new Error(`expected a gate, got ${last?.next}`);
    }
    const callback = new RecordingCallback();
    const requested = await requestApproval(
      {
        goals: table.adapters.goals,
        outbox: table.adapters.outbox,
        callback,
        now: loop.now,
        newApprovalId: () => {
          ids += 1;
          return `ap-test-${ids}`;
        },
      },
      { approvalTimeoutSeconds: 3600 },
      { ...last, next: last.next, taskToken: TOKEN },
    );
    return { last, requested, callback };
  }

  async function decide(loop: ReactLoopDriver, approvalId: string, decision: "approve" | "reject") {
    const published: HumanInputEvent[] = [];
    const result = await decideApprovalFromDoor(
      {
        goals: table.adapters.goals,
        publisher: { publish: async (e) => void published.push(e) },
        now: loop.now,
      },
      { approvalId, decision, decidedBy: "ana", channel: "api" },
    );
    const callback = new RecordingCallback();
    const event = published[0];
    const handled =
      event?.detailType === "Approval Decided"
        ? await handleApprovalDecided({ goals: table.adapters.goals, callback, now: loop.now }, event.detail)
        : undefined;
    return { result, handled, callback, published };
  }

  it("parks the goal on an irreversible call, and runs it exactly once after approval", async () => {
    // Prepare
    const goal = await createGoal(table, notifySpec);
    const model = new ScriptedModel({
      reason: [calls("notify", { channel: "ops", message: "Release 1.2 is out" }), says("done")],
    });
    const loop = new ReactLoopDriver(table, model);

    // Act
    const { requested } = await untilApproval(loop, goal.goalId);
    if (requested.outcome !== "requested") throw new Error("no approval requested");
    const waiting = await loop.goal(goal.goalId);
    const pending = await table.adapters.goals.getApproval(requested.approvalId);
    const { result, handled, callback } = await decide(loop, requested.approvalId, "approve");
    const wake = callback.answers[0]?.output;
    if (!wake) throw new Error("the token was not answered");
    const acted = await loop.act(wake);
    await loop.act(wake);
    const final = await loop.verifyAndReason(acted);

    // Assess
    expect(waiting).toMatchObject({
      status: "waiting",
      waitingFor: { kind: "approval", approvalId: requested.approvalId },
      resumeCondition: { eventType: "Approval Decided", approvalId: requested.approvalId, revision: 1 },
    });
    expect(pending).toMatchObject({ status: "pending", taskToken: TOKEN, action: { kind: "tool" } });
    expect(result.outcome).toBe("decided");
    expect(handled?.outcome).toBe("woke");
    expect(callback.answers).toEqual([{ token: TOKEN, output: expect.objectContaining({ next: "act" }) }]);
    expect(await table.adapters.outbox.listMessages(goal.goalId)).toEqual([
      expect.objectContaining({ channel: "api", message: expect.stringContaining(requested.approvalId) }),
      expect.objectContaining({ channel: "ops", message: "Release 1.2 is out" }),
    ]);
    expect(final.next).toBe("completed");
    const events = JSON.stringify(await loop.events(goal.goalId));
    expect(events).toContain("approval.requested");
    expect(events).toContain("approval.decided");
    expect(events).not.toContain(TOKEN);
  });

  it("answers a rejected call with RejectedByHuman and runs the turn's other calls", async () => {
    // Prepare
    const goal = await createGoal(table, notifySpec);
    const turn = calls("notify", { channel: "ops", message: "Deploying" });
    const write = {
      toolUse: { toolUseId: "write-1", name: "workspace_write", input: { path: "a.md", content: "x" } },
    };
    const model = new ScriptedModel({ reason: [{ ...turn, content: [...turn.content, write] }] });
    const loop = new ReactLoopDriver(table, model);

    // Act
    const { requested } = await untilApproval(loop, goal.goalId);
    if (requested.outcome !== "requested") throw new Error("no approval requested");
    const { callback } = await decide(loop, requested.approvalId, "reject");
    const wake = callback.answers[0]?.output;
    if (!wake) throw new Error("the token was not answered");
    await loop.act(wake);

    // Assess
    const [step] = await table.adapters.stepLog.listRecentSteps(goal.goalId, 1);
    expect(step?.toolResults.map((r) => r.status)).toEqual(["error", "success"]);
    expect(JSON.stringify(step?.toolResults[0])).toContain("RejectedByHuman");
    expect((await table.adapters.outbox.listMessages(goal.goalId)).map((m) => m.channel)).toEqual(["api"]);
    expect((await loop.goal(goal.goalId)).status).toBe("running");
  });

  it("does not wake a goal for a late duplicate, and expires the approval when the wait timed out", async () => {
    // Prepare
    const goal = await createGoal(table, notifySpec);
    const model = new ScriptedModel({ reason: [calls("notify", { channel: "ops", message: "Hi" })] });
    const loop = new ReactLoopDriver(table, model);
    const { requested, last } = await untilApproval(loop, goal.goalId);
    if (requested.outcome !== "requested") throw new Error("no approval requested");

    // Act
    const expired = await approvalExpired({ goals: table.adapters.goals, now: steppingClock() }, last);
    const late = await decide(loop, requested.approvalId, "approve");
    await loop.act(expired);

    // Assess
    expect(expired.next).toBe("act");
    expect((await table.adapters.goals.getApproval(requested.approvalId))?.status).toBe("expired");
    expect(late.result.outcome).toBe("expired");
    expect(late.published).toEqual([]);
    const [step] = await table.adapters.stepLog.listRecentSteps(goal.goalId, 1);
    expect(JSON.stringify(step?.toolResults[0])).toContain("ApprovalExpired");
  });

  it("extends a reached limit on approval and terminates the goal on rejection", async () => {
    // Prepare
    const spec = reactSpec({ limits: { maxSteps: 1 } });
    const extended = await createGoal(table, spec);
    const ended = await createGoal(table, spec);
    const model = () =>
      new ScriptedModel({ reason: [calls("workspace_write", { path: "a.md", content: "no" })] });
    const loopA = new ReactLoopDriver(table, model());
    const loopB = new ReactLoopDriver(table, model());

    // Act
    const a = await untilApproval(loopA, extended.goalId);
    const b = await untilApproval(loopB, ended.goalId);
    if (a.requested.outcome !== "requested" || b.requested.outcome !== "requested")
      throw new Error("no decision asked");
    const waitingA = await loopA.goal(extended.goalId);
    const approved = await decide(loopA, a.requested.approvalId, "approve");
    const rejected = await decide(loopB, b.requested.approvalId, "reject");

    // Assess
    expect(a.last.next).toBe("limit_decision");
    expect(waitingA).toMatchObject({ status: "waiting", waitingFor: { kind: "decision" } });
    expect(approved.callback.answers[0]?.output.next).toBe("verify");
    const goalA = await loopA.goal(extended.goalId);
    expect(goalA).toMatchObject({ status: "running", spec: { limits: { maxSteps: 2 } } });
    expect(rejected.callback.answers[0]?.output.next).toBe("terminated");
    expect(await loopB.goal(ended.goalId)).toMatchObject({
      status: "terminated",
      stopReason: { kind: "limit" },
    });
  });
});
