import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideApprovalFromDoor } from "../../../lambdas/core/human/decide-approval";
import type { HumanInputEvent } from "../../../lambdas/core/human/human-input-events";
import { handleApprovalDecided, type ResumeOutcome } from "../../../lambdas/core/human/resume-handler";
import { requestApproval } from "../../../lambdas/core/loop/gates/request-approval";
import { reattachGoal, reviveDeadRun } from "../../../lambdas/core/loop/reattach-goal";
import type { StepResult } from "../../../lambdas/core/loop/step-result";
import type { Approval, GoalStore } from "../../../lambdas/core/ports/goal-store";
import type { RunRef } from "../../../lambdas/core/ports/run-control";
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
} from "./support";

/**
 * Step Functions' side of task tokens: a token answers once, and only while its wait is live (a
 * stopped process takes every wait it held with it: `die()`).
 */
class TaskTokens implements TaskCallback {
  private readonly live = new Set<string>();
  readonly answers: { token: string; output: StepResult }[] = [];

  wait(token: string): string {
    this.live.add(token);
    return token;
  }

  die(): void {
    this.live.clear();
  }

  /** Runs when a dead token is answered, before the answer fails (to interleave a new wait). */
  onDeadToken: (() => Promise<void>) | undefined;

  async succeed(token: string, output: StepResult): Promise<void> {
    if (!this.live.delete(token)) {
      const interleave = this.onDeadToken;
      this.onDeadToken = undefined;
      await interleave?.();
      throw new TaskTokenGoneError("InvalidToken");
    }
    this.answers.push({ token, output });
  }

  answerTo(token: string): StepResult | undefined {
    return this.answers.find((answer) => answer.token === token)?.output;
  }
}

const notifySpec = notifyOpsSpec();

describe("a decision and the run that parks for it, in any order", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });
  afterAll(() => table.stop());

  /** A goal whose run r1 parked on approval of one notify, then died with its process. */
  async function parkedThenDead() {
    const goal = await createGoal(table, notifySpec);
    const model = new ScriptedModel({
      reason: [calls("notify", { channel: "ops", message: "Release 1.2 is out" }), says("done")],
    });
    const loop = new ReactLoopDriver(table, model);
    const tokens = new TaskTokens();
    const first = (await loop.run(goal.goalId)).at(-1);
    if (first?.next !== "approval") throw new Error(`expected an approval, got ${first?.next}`);
    const parked = await park(loop, tokens, first, "token-r1");
    if (parked.outcome !== "requested") throw new Error("no approval requested");
    tokens.die();
    return { goalId: goal.goalId, loop, tokens, approvalId: parked.approvalId, model };
  }

  function park(
    loop: ReactLoopDriver,
    tokens: TaskTokens,
    position: StepResult,
    token: string,
    goals: GoalStore = table.adapters.goals,
  ) {
    if (position.next !== "approval") throw new Error(`expected an approval, got ${position.next}`);
    return requestApproval(
      {
        goals,
        outbox: table.adapters.outbox,
        callback: tokens,
        now: loop.now,
        newApprovalId: () => `ap-${position.goalId}-${token}`,
      },
      { approvalTimeoutSeconds: 3600 },
      { ...position, next: "approval", taskToken: tokens.wait(token) },
    );
  }

  /** A human approves at a door; the resume handler gets the event (with `reviveRun` when given). */
  async function approve(
    loop: ReactLoopDriver,
    tokens: TaskTokens,
    approvalId: string,
    options: { goals?: GoalStore; reviveRun?: (goalId: string) => Promise<unknown> } = {},
  ): Promise<ResumeOutcome> {
    const published: HumanInputEvent[] = [];
    await decideApprovalFromDoor(
      {
        goals: table.adapters.goals,
        publisher: { publish: async (event) => void published.push(event) },
        now: loop.now,
      },
      { approvalId, decision: "approve", decidedBy: "ana", channel: "api" },
    );
    const event = published[0];
    if (event?.detailType !== "Approval Decided") throw new Error("no decision published");
    return handleApprovalDecided(
      {
        goals: options.goals ?? table.adapters.goals,
        callback: tokens,
        now: loop.now,
        ...(options.reviveRun ? { reviveRun: options.reviveRun } : {}),
      },
      event.detail,
    );
  }

  async function notifies(goalId: string) {
    return (await table.adapters.outbox.listMessages(goalId)).filter((message) => message.channel === "ops");
  }

  it("acts on a decision taken before the dead run was re-attached: the new run goes to Act", async () => {
    // Prepare
    const { goalId, loop, tokens, approvalId, model } = await parkedThenDead();
    const revived: string[] = [];

    // Act: approved while no run lives; then the restart re-attaches the goal
    const outcome = await approve(loop, tokens, approvalId, {
      reviveRun: async (id) => void revived.push(id),
    });
    const reattached = await reattachGoal({ goals: table.adapters.goals, now: loop.now }, goalId);
    const answers = await loop.run(goalId, "r2");

    // Assess
    expect(outcome.outcome).toBe("recorded");
    expect(revived).toEqual([goalId]);
    expect(reattached).toMatchObject({ runId: "r2", status: "running" });
    expect(answers.map((answer) => answer.next)).toEqual(["act", "verify", "completed"]);
    expect(model.requests).toHaveLength(1);
    expect(await notifies(goalId)).toHaveLength(1);
  });

  it("acts on a decision taken after the re-attach but before the new run loaded the goal", async () => {
    // Prepare
    const { goalId, loop, tokens, approvalId, model } = await parkedThenDead();
    await reattachGoal({ goals: table.adapters.goals, now: loop.now }, goalId);

    // Act
    const outcome = await approve(loop, tokens, approvalId);
    const answers = await loop.run(goalId, "r2");

    // Assess
    expect(outcome.outcome).toBe("recorded");
    expect(answers.map((answer) => answer.next)).toEqual(["act", "verify", "completed"]);
    expect(model.requests).toHaveLength(1);
    expect(await notifies(goalId)).toHaveLength(1);
  });

  it("answers the new run's wait when the decision came after its LoadGoal but before it parked", async () => {
    // Prepare
    const { goalId, loop, tokens, approvalId } = await parkedThenDead();
    await reattachGoal({ goals: table.adapters.goals, now: loop.now }, goalId);
    const loaded = await loop.load(goalId, "r2");

    // Act
    await approve(loop, tokens, approvalId);
    const parked = await park(loop, tokens, loaded, "token-r2");
    const wake = tokens.answerTo("token-r2");
    const answers = wake ? await loop.continue(wake) : [];

    // Assess
    expect(loaded.next).toBe("approval");
    expect(parked).toEqual({ outcome: "answered", next: "act" });
    expect(answers.at(-1)?.next).toBe("completed");
    expect(await notifies(goalId)).toHaveLength(1);
  });

  it("follows the token to the new wait when one replaced it while the handler was sending", async () => {
    // Prepare: the handler sends to r1's token; at that moment r2's wait has stored its own
    const { goalId, loop, tokens, approvalId } = await parkedThenDead();
    await reattachGoal({ goals: table.adapters.goals, now: loop.now }, goalId);
    tokens.onDeadToken = async () => {
      await table.adapters.goals.replaceApprovalToken(approvalId, tokens.wait("token-r2"));
    };

    // Act
    const outcome = await approve(loop, tokens, approvalId);
    const wake = tokens.answerTo("token-r2");
    const answers = wake ? await loop.continue(wake) : [];

    // Assess
    expect(outcome.outcome).toBe("woke");
    expect(wake).toMatchObject({ runId: "r2", next: "act" });
    expect(answers.at(-1)?.next).toBe("completed");
    expect(await notifies(goalId)).toHaveLength(1);
  });

  it("delivers a decision taken between storing the approval and parking the goal", async () => {
    // Prepare: the human decides as soon as the approval is listed, before the goal waits for it
    const goal = await createGoal(table, notifySpec);
    const model = new ScriptedModel({
      reason: [calls("notify", { channel: "ops", message: "Release 1.3 is out" }), says("done")],
    });
    const loop = new ReactLoopDriver(table, model);
    const tokens = new TaskTokens();
    const first = (await loop.run(goal.goalId)).at(-1);
    if (!first) throw new Error("the run answered nothing");
    const handlerOutcomes: ResumeOutcome[] = [];
    const decidesEarly: GoalStore = Object.create(table.adapters.goals);
    decidesEarly.putApproval = async (approval: Approval) => {
      await table.adapters.goals.putApproval(approval);
      handlerOutcomes.push(await approve(loop, tokens, approval.approvalId));
    };

    // Act
    const parked = await park(loop, tokens, first, "token-early", decidesEarly);
    const wake = tokens.answerTo("token-early");
    const answers = wake ? await loop.continue(wake) : [];

    // Assess
    expect(handlerOutcomes.map((outcome) => outcome.outcome)).toEqual(["ignored"]);
    expect(parked).toMatchObject({ outcome: "delivered" });
    expect(wake).toMatchObject({ next: "act" });
    expect(answers.at(-1)?.next).toBe("completed");
    expect(await notifies(goal.goalId)).toHaveLength(1);
  });
});

describe("reviving a goal whose run is over", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });
  afterAll(() => table.stop());

  function ports(live: ReadonlySet<string>, started: RunRef[], now: () => Date) {
    return {
      goals: table.adapters.goals,
      now,
      stateMachineArns: { react: "arn:aws:states:us-east-1:111111111111:stateMachine:react" },
      runIsLive: async (run: RunRef) => live.has(run.runId),
      startRun: async (run: RunRef) => void started.push(run),
    };
  }

  it("gives a running goal whose run ended a new run and starts it, and leaves a live run alone", async () => {
    // Prepare
    const goal = await createGoal(table, reactSpec());
    const loop = new ReactLoopDriver(table, new ScriptedModel({ reason: [] }));
    const started: RunRef[] = [];

    // Act
    const whileLive = await reviveDeadRun(ports(new Set(["r1"]), started, loop.now), goal.goalId);
    const revived = await reviveDeadRun(ports(new Set(), started, loop.now), goal.goalId);
    const again = await reviveDeadRun(ports(new Set(["r2"]), started, loop.now), goal.goalId);

    // Assess
    expect(whileLive).toBeUndefined();
    expect(revived).toMatchObject({ runId: "r2", previousRunId: "r1", status: "running" });
    expect(again).toBeUndefined();
    expect(started).toEqual([
      { stateMachineArn: expect.stringContaining(":react"), goalId: goal.goalId, runId: "r2" },
    ]);
  });
});
