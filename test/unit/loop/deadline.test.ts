import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pause } from "../../../lambdas/core/goal/goal-lifecycle";
import { enforceDeadline } from "../../../lambdas/core/loop/gates/deadline";
import { requestApproval } from "../../../lambdas/core/loop/gates/request-approval";
import type { DeadlineSchedule } from "../../../lambdas/core/ports/deadline-schedule";
import { changeGoal, storedGoal } from "../human/control-support";
import {
  AnsweredTokens,
  calls,
  createGoal,
  type GoalTable,
  notifyOpsSpec,
  ReactLoopDriver,
  ScriptedModel,
  says,
  startGoalTable,
  T0,
} from "./support";

const DEADLINE = new Date(T0.getTime() + 3_600_000).toISOString();
const PAST_DEADLINE = () => new Date(Date.parse(DEADLINE) + 5_000);

const notifyBeforeDeadline = notifyOpsSpec({ limits: { deadline: DEADLINE } });

describe("enforceDeadline: limits hold while nothing runs", () => {
  let table: GoalTable;
  beforeAll(async () => {
    table = await startGoalTable();
  });
  afterAll(() => table.stop());

  /** A goal whose run parked on approval of a notify, with token `token-1`. */
  async function waitingForApproval(rearm?: {
    schedule: DeadlineSchedule;
    onError: (error: unknown) => void;
  }) {
    const goal = await createGoal(table, notifyBeforeDeadline);
    const model = new ScriptedModel({
      reason: [calls("notify", { channel: "ops", message: "out" }), says("ok")],
    });
    const loop = new ReactLoopDriver(table, model);
    const position = (await loop.run(goal.goalId)).at(-1);
    if (position?.next !== "approval") throw new Error(`expected an approval, got ${position?.next}`);
    const tokens = new AnsweredTokens();
    const parked = await requestApproval(
      {
        goals: table.adapters.goals,
        outbox: table.adapters.outbox,
        callback: tokens,
        now: loop.now,
        newApprovalId: () => `ap-${goal.goalId}`,
        ...(rearm ? { rearmDeadline: rearm } : {}),
      },
      { approvalTimeoutSeconds: 24 * 3600 },
      { ...position, next: "approval", taskToken: "token-1" },
    );
    if (parked.outcome !== "requested") throw new Error("no approval requested");
    return { goalId: goal.goalId, approvalId: parked.approvalId, tokens };
  }

  it("sets the deadline schedule again as a wait starts; a schedule that cannot be set does not stop the wait", async () => {
    // Prepare
    const set: string[] = [];
    const errors: unknown[] = [];
    const working = {
      set: async (goalId: string, deadline: string) => void set.push(`${goalId}@${deadline}`),
    };
    const broken = {
      set: async () => {
        throw new Error("Scheduler is down");
      },
    };

    // Act
    const first = await waitingForApproval({ schedule: working, onError: (error) => errors.push(error) });
    const second = await waitingForApproval({ schedule: broken, onError: (error) => errors.push(error) });

    // Assess
    expect(set).toEqual([`${first.goalId}@${DEADLINE}`]);
    expect(errors).toEqual([expect.objectContaining({ message: "Scheduler is down" })]);
    expect((await storedGoal(table, second.goalId)).status).toBe("waiting");
  });

  it("caps an approval's expiry at the goal's deadline", async () => {
    // Act
    const { approvalId } = await waitingForApproval();

    // Assess: 24 h asked for, the deadline is one hour after the start
    const approval = await table.adapters.goals.getApproval(approvalId);
    expect(approval?.expiresAt).toBe(DEADLINE);
  });

  it("terminates a goal waiting for approval past its deadline, ends the wait, and says why", async () => {
    // Prepare
    const { goalId, approvalId, tokens } = await waitingForApproval();

    // Act
    const outcome = await enforceDeadline(
      { goals: table.adapters.goals, callback: tokens, now: PAST_DEADLINE },
      { goalId, deadline: DEADLINE },
    );

    // Assess
    expect(outcome.outcome).toBe("terminated");
    const goal = await storedGoal(table, goalId);
    expect(goal.status).toBe("terminated");
    expect(goal.stopReason).toMatchObject({ kind: "limit", detail: "deadline" });
    expect(goal.stopReason?.message).toContain("while waiting (approval)");
    expect((await table.adapters.goals.getApproval(approvalId))?.status).toBe("superseded");
    expect(tokens.answers.get("token-1")?.next).toBe("terminated");
  });

  it("terminates a paused goal at its deadline", async () => {
    // Prepare
    const goal = await createGoal(table, notifyBeforeDeadline);
    await changeGoal(table, goal.goalId, (record) =>
      pause(record, { kind: "policy", detail: "user_pause", message: "paused by ana" }, T0),
    );

    // Act
    const outcome = await enforceDeadline(
      { goals: table.adapters.goals, callback: new AnsweredTokens(), now: PAST_DEADLINE },
      { goalId: goal.goalId, deadline: DEADLINE },
    );

    // Assess
    expect(outcome.outcome).toBe("terminated");
    expect((await storedGoal(table, goal.goalId)).stopReason?.message).toContain("while paused");
  });

  it("leaves a goal alone before its deadline, once it ran on, and when it is running", async () => {
    // Prepare
    const waiting = await waitingForApproval();
    const running = await createGoal(table, notifyBeforeDeadline);
    const ports = { goals: table.adapters.goals, callback: new AnsweredTokens() };

    // Act: too early (the deadline moved later since the schedule was set), and a running goal
    const early = await enforceDeadline(
      { ...ports, now: () => new Date(Date.parse(DEADLINE) - 1_000) },
      { goalId: waiting.goalId, deadline: DEADLINE },
    );
    const onRunning = await enforceDeadline(
      { ...ports, now: PAST_DEADLINE },
      { goalId: running.goalId, deadline: DEADLINE },
    );
    const missing = await enforceDeadline(
      { ...ports, now: PAST_DEADLINE },
      { goalId: "goal-nobody", deadline: DEADLINE },
    );

    // Assess: the running goal's own loop asks for a limit decision at its next step
    expect([early.outcome, onRunning.outcome, missing.outcome]).toEqual(["ignored", "ignored", "ignored"]);
    expect((await storedGoal(table, waiting.goalId)).status).toBe("waiting");
    expect((await storedGoal(table, running.goalId)).status).toBe("running");
  });
});
