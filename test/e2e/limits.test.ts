import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GoalSpecInput } from "../../lib/client/index";
import { gatedNotifyGoal } from "./gated-notify-goal";
import { allEvents, type E2eStack, followGoal } from "./local-stack-harness";
import { sharedE2eStack } from "./shared-e2e-stack";

/** Billed like Claude Sonnet ($3 / $15 per 1M tokens): each turn costs $0.123 (1,000 in, 8,000 out). */
const USAGE = { inputTokens: 1000, outputTokens: 8000 };
const pricedFixture = {
  reason: [
    { toolUse: { name: "workspace_write", input: { path: "draft.md", content: "draft" } }, usage: USAGE },
    {
      toolUse: { name: "workspace_write", input: { path: "report.md", content: "report: done" } },
      usage: USAGE,
    },
  ],
};

/** A goal that must tell ops through `notify`, which waits for a human's approval. */
const notifyGoal = (limits: GoalSpecInput["limits"]) => gatedNotifyGoal({ limits });

describe("limits on the local stack", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await sharedE2eStack();
    e2e.writeFixture("priced-two-turns", pricedFixture);
  });

  /** The goal once it is no longer `status` (or still so after 40 s), then settled. */
  async function settledAs(goalId: string, status: string) {
    let goal = await e2e.client.getGoal(goalId);
    for (const until = Date.now() + 40_000; goal.status === status && Date.now() < until; ) {
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
      goal = await e2e.client.getGoal(goalId);
    }
    return (await followGoal(e2e.client, goalId)).final;
  }

  afterAll(async () => {
    await e2e?.stop();
  });

  it("waits at maxCostUsd before a call the budget cannot pay for, then runs on after POST /limits", async () => {
    // Prepare: $0.25 pays for one turn ($0.123), not for the second's worst case: its real output
    // ceiling, 4,096 tokens of answer and 8,192 of thinking at effort high ($0.184), and its prompt
    const accepted = await e2e.client.submitGoal({
      objective: "Write a draft, then the report",
      successChecks: [
        {
          id: "report",
          description: "report.md is done",
          verify: { kind: "artifact", path: "report.md", contains: "done" },
        },
      ],
      limits: { maxCostUsd: 0.25, maxSteps: 10 },
      pattern: "react",
      models: { default: "scripted:priced-two-turns" },
    });

    // Act
    const waiting = (await followGoal(e2e.client, accepted.goalId)).final;
    const raised = await e2e.client.setLimits(accepted.goalId, { maxCostUsd: 0.5 });
    const final = await settledAs(accepted.goalId, "waiting");

    // Assess
    expect(waiting).toMatchObject({
      status: "waiting",
      waitingFor: { kind: "decision" },
      usage: { modelCalls: 1 },
    });
    expect(waiting.waitingFor?.reason).toMatch(
      /^maxCostUsd reached: the next reason call may cost up to \$0\.1[89]/,
    );
    expect(waiting.usage.costUsd).toBeLessThanOrEqual(0.25);
    expect(raised.limits).toMatchObject({ maxCostUsd: 0.5 });
    expect(final).toMatchObject({ status: "completed", usage: { modelCalls: 2 } });
    expect(final.limits).toMatchObject({ maxCostUsd: 0.5 });
    const types = (await allEvents(e2e.client, accepted.goalId)).map((event) => event.type);
    expect(types).toContain("cost.limit_reached");
    expect(types).toContain("limits.extended");
  }, 60_000);

  it("ends a goal still waiting for approval at its deadline: terminated, with the reason", async () => {
    // Prepare: the approval is never answered; the deadline comes while the goal waits
    const deadline = new Date(Date.now() + 8_000).toISOString();
    const accepted = await e2e.client.submitGoal(notifyGoal({ maxSteps: 10, deadline }));

    // Act
    const waiting = (await followGoal(e2e.client, accepted.goalId)).final;
    const [approval] = (await e2e.client.listApprovals("pending")).filter(
      (pending) => pending.goalId === accepted.goalId,
    );
    const final = await settledAs(accepted.goalId, "waiting");
    const late = await e2e.client
      .decideApproval(approval?.approvalId ?? "none", "approve")
      .catch((error: unknown) => error);

    // Assess: the approval lapsed with the deadline, and deciding it now changes nothing
    expect(waiting).toMatchObject({ status: "waiting", waitingFor: { kind: "approval" } });
    expect(approval).toMatchObject({ goalId: accepted.goalId, expiresAt: deadline });
    expect(final).toMatchObject({
      status: "terminated",
      stopReason: { kind: "limit", detail: "deadline" },
    });
    expect(final.stopReason?.message).toContain("deadline reached while waiting (approval)");
    expect(late).toMatchObject({ status: 410, body: { code: "ApprovalExpired" } });
    expect(final.satisfiedChecks).toEqual([]);
  }, 60_000);

  it("raises the limits of a goal that has not ended, refuses a final goal's, and names a bad field", async () => {
    // Prepare: a goal that waits for approval of its notify, so it is still open when the limits change
    const accepted = await e2e.client.submitGoal(notifyGoal({ maxSteps: 10 }));
    const waiting = (await followGoal(e2e.client, accepted.goalId)).final;

    // Act
    const badField = await e2e.client
      .setLimits(accepted.goalId, { maxSteps: -1 })
      .catch((error: unknown) => error);
    const raised = await e2e.client
      .setLimits(accepted.goalId, { maxSteps: 40 })
      .catch((error: unknown) => error);
    const [approval] = (await e2e.client.listApprovals("pending")).filter(
      (pending) => pending.goalId === accepted.goalId,
    );
    await e2e.client.decideApproval(approval?.approvalId ?? "none", "approve");
    const settled = await settledAs(accepted.goalId, "waiting");
    const onFinal = await e2e.client
      .setLimits(accepted.goalId, { maxSteps: 50 })
      .catch((error: unknown) => error);

    // Assess
    expect(waiting.status).toBe("waiting");
    expect(badField).toMatchObject({
      status: 400,
      body: { code: "ValidationError", issues: [{ path: "maxSteps" }] },
    });
    expect(raised).toMatchObject({ goalId: accepted.goalId, limits: { maxSteps: 40 } });
    expect(settled).toMatchObject({ status: "completed", limits: { maxSteps: 40 } });
    expect(onFinal).toMatchObject({ status: 409, body: { code: "InvalidStatus" } });
  }, 60_000);
});
