import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkProgress } from "../../../lambdas/core/goal/evidence/check-evidence";
import { decideApprovalFromDoor } from "../../../lambdas/core/human/decide-approval";
import type { HumanInputEvent } from "../../../lambdas/core/human/human-input-events";
import { handleApprovalDecided } from "../../../lambdas/core/human/resume-handler";
import { approvalExpired } from "../../../lambdas/core/loop/gates/approval-expired";
import { requestApproval } from "../../../lambdas/core/loop/gates/request-approval";
import type { StepResult } from "../../../lambdas/core/loop/step-result";
import {
  AnsweredTokens,
  createGoal,
  type GoalTable,
  ReactLoopDriver,
  reactSpec,
  ScriptedModel,
  says,
  startGoalTable,
  writes,
} from "./support";

const signedOffSpec = reactSpec({
  objective: "Write the release summary and have the editor sign it off",
  successChecks: [
    {
      id: "summary",
      description: "summary.md mentions 2.0",
      verify: { kind: "artifact", path: "summary.md", contains: "2.0" },
    },
    {
      id: "editor-ok",
      description: "the editor accepts the summary",
      verify: { kind: "approval", prompt: "Is summary.md good enough to publish?" },
    },
  ],
});

describe("approval success checks: a human signs them off through the approval doors", () => {
  let table: GoalTable;
  beforeAll(async () => {
    table = await startGoalTable();
  });
  afterAll(() => table.stop());

  /** Runs until the goal asks for the check, parks it with `token`; the approval's id. */
  async function askedForCheck(loop: ReactLoopDriver, tokens: AnsweredTokens, goalId: string, token: string) {
    const answers = await loop.run(goalId);
    return parkOn(loop, tokens, answers.at(-1), token);
  }

  async function parkOn(
    loop: ReactLoopDriver,
    tokens: AnsweredTokens,
    position: StepResult | undefined,
    token: string,
  ) {
    if (position?.next !== "decision") throw new Error(`expected a decision, got ${position?.next}`);
    const parked = await requestApproval(
      {
        goals: table.adapters.goals,
        outbox: table.adapters.outbox,
        callback: tokens,
        now: loop.now,
        newApprovalId: () => `ap-${position.goalId}-${token}`,
      },
      { approvalTimeoutSeconds: 3600 },
      { ...position, next: "decision", taskToken: token },
    );
    if (parked.outcome !== "requested") throw new Error(`no approval requested: ${parked.outcome}`);
    return parked.approvalId;
  }

  async function decide(
    loop: ReactLoopDriver,
    tokens: AnsweredTokens,
    approvalId: string,
    decision: "approve" | "reject",
    comment?: string,
  ) {
    const published: HumanInputEvent[] = [];
    await decideApprovalFromDoor(
      {
        goals: table.adapters.goals,
        publisher: { publish: async (event) => void published.push(event) },
        now: loop.now,
      },
      { approvalId, decision, decidedBy: "editor", channel: "api", ...(comment ? { comment } : {}) },
    );
    const event = published[0];
    if (event?.detailType !== "Approval Decided") throw new Error("no decision published");
    return handleApprovalDecided(
      { goals: table.adapters.goals, callback: tokens, now: loop.now },
      event.detail,
    );
  }

  it("asks once the other checks are met, and completes on the approval as the check's evidence", async () => {
    // Prepare
    const goal = await createGoal(table, signedOffSpec);
    const model = new ScriptedModel({ reason: [writes("summary.md", "Release 2.0 is out")] });
    const loop = new ReactLoopDriver(table, model);
    const tokens = new AnsweredTokens();

    // Act
    const approvalId = await askedForCheck(loop, tokens, goal.goalId, "token-1");
    const waiting = await loop.goal(goal.goalId);
    await decide(loop, tokens, approvalId, "approve");
    const wake = tokens.answers.get("token-1");
    const answers = wake ? await loop.continue(wake) : [];

    // Assess
    expect(waiting).toMatchObject({ status: "waiting", waitingFor: { kind: "approval", approvalId } });
    expect(checkProgress(waiting)).toEqual({
      overall: 0.75,
      checks: { summary: "met", "editor-ok": "partial" },
    });
    const approval = await table.adapters.goals.getApproval(approvalId);
    expect(approval?.action).toMatchObject({ kind: "check" });
    expect(approval?.action.summary).toContain("Is summary.md good enough to publish?");
    expect(wake?.next).toBe("verify");
    expect(answers.at(-1)?.next).toBe("completed");
    const done = await loop.goal(goal.goalId);
    expect(done.evidence.find((item) => item.checkId === "editor-ok")).toMatchObject({
      kind: "approval",
      strength: "strong",
      approvalId,
      decidedBy: "editor",
    });
    expect(model.requests).toHaveLength(1);
  });

  it("sends a rejection's comment to the model, and asks again after new work", async () => {
    // Prepare
    const goal = await createGoal(table, signedOffSpec);
    const model = new ScriptedModel({
      reason: [
        writes("summary.md", "Release 2.0"),
        writes("summary.md", "Release 2.0: faster builds, new CLI"),
      ],
    });
    const loop = new ReactLoopDriver(table, model);
    const tokens = new AnsweredTokens();

    // Act
    const first = await askedForCheck(loop, tokens, goal.goalId, "token-1");
    await decide(loop, tokens, first, "reject", "Too short: list the highlights");
    const wake = tokens.answers.get("token-1");
    const again = wake ? await loop.continue(wake) : [];
    const second = await parkOn(loop, tokens, again.at(-1), "token-2");
    await decide(loop, tokens, second, "approve");
    const rewake = tokens.answers.get("token-2");
    const answers = rewake ? await loop.continue(rewake) : [];

    // Assess
    const secondPrompt = JSON.stringify(model.requestsFor("reason")[1]?.messages.at(-1));
    expect(secondPrompt).toContain(
      "success check editor-ok was rejected by editor: Too short: list the highlights",
    );
    expect(second).not.toBe(first);
    expect(answers.at(-1)?.next).toBe("completed");
  });

  it("pauses the goal when nobody signs the check off before the wait times out", async () => {
    // Prepare
    const goal = await createGoal(table, signedOffSpec);
    const model = new ScriptedModel({ reason: [writes("summary.md", "Release 2.0 is out")] });
    const loop = new ReactLoopDriver(table, model);
    const tokens = new AnsweredTokens();
    const approvalId = await askedForCheck(loop, tokens, goal.goalId, "token-1");

    // Act
    const expired = await approvalExpired(
      { goals: table.adapters.goals, now: loop.now },
      { goalId: goal.goalId, runId: "r1", iteration: (await loop.goal(goal.goalId)).runIteration },
    );

    // Assess
    expect(expired.next).toBe("paused");
    const paused = await loop.goal(goal.goalId);
    expect(paused.stopReason).toMatchObject({ kind: "policy", detail: "check_approval_expired" });
    expect(paused.checkApproval).toBeUndefined();
    expect((await table.adapters.goals.getApproval(approvalId))?.status).toBe("expired");
  });

  it("asks a goal whose only check is an approval once the model says it is done", async () => {
    // Prepare
    const goal = await createGoal(
      table,
      reactSpec({
        objective: "Draft the announcement",
        successChecks: [
          { id: "ok", description: "approved", verify: { kind: "approval", prompt: "Publish it?" } },
        ],
      }),
    );
    const model = new ScriptedModel({
      reason: [writes("draft.md", "We shipped"), says("The draft is ready.")],
    });
    const loop = new ReactLoopDriver(table, model);

    // Act
    const answers = await loop.run(goal.goalId);

    // Assess: not after the write, only after the claim
    expect(answers.at(-1)?.next).toBe("decision");
    expect(model.requests).toHaveLength(2);
    expect((await loop.goal(goal.goalId)).checkApproval).toMatchObject({ checkId: "ok", outcome: "pending" });
  });
});
