import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkLimits } from "../../../lambdas/core/goal/limits";
import type { HumanInputEvent } from "../../../lambdas/core/human/human-input-events";
import { limitExtension } from "../../../lambdas/core/human/limit-extension";
import { raiseLimits } from "../../../lambdas/core/human/raise-limits";
import { stopAtCostLimit } from "../../../lambdas/core/loop/cost-limit";
import { requestApproval } from "../../../lambdas/core/loop/gates/request-approval";
import type { StepResult } from "../../../lambdas/core/loop/step-result";
import { checkpointedCall, worstCaseCostUsd } from "../../../lambdas/core/models/model-call";
import {
  createGoal,
  type GoalTable,
  ReactLoopDriver,
  reactSpec,
  ScriptedModel,
  says,
  startGoalTable,
  writes,
} from "./support";

/**
 * Billed like Claude Sonnet 4.x: a reason call's worst case (its real output ceiling: 4,096 tokens of
 * answer and 8,192 of thinking at effort high) is about $0.185.
 */
const PRICED = "scripted:priced-test";

describe("the cost limit before a model call", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });
  afterAll(() => table.stop());

  async function budgetGoal(maxCostUsd: number) {
    const goal = await createGoal(
      table,
      reactSpec({ models: { default: PRICED }, limits: { maxCostUsd, maxSteps: 10 } }),
    );
    const model = new ScriptedModel({ reason: [writes("out/haiku.md", "autumn"), says("done")] });
    const loop = new ReactLoopDriver(table, model);
    return { goal, model, loop, loaded: await loop.load(goal.goalId) };
  }

  it("makes no call the remaining budget cannot pay for at its worst case, and asks for a limit decision", async () => {
    // Prepare
    const { goal, model, loop, loaded } = await budgetGoal(0.01);

    // Act
    const answer = await stopAtCostLimit(loop.ports(), loaded, () => loop.verifyAndReason(loaded));

    // Assess
    expect(answer).toMatchObject({ runId: "r1", next: "limit_decision" });
    expect(model.requests).toHaveLength(0);
    const record = await loop.goal(goal.goalId);
    expect(record.usage.costUsd).toBe(0);
    expect(record.costShortfall).toMatchObject({ role: "reason" });
    expect(record.costShortfall?.neededUsd).toBeGreaterThan(0.18);
    expect(checkLimits(record, new Date())).toMatchObject({
      detail: "maxCostUsd",
      message: expect.stringMatching(
        /^maxCostUsd reached: the next reason call may cost up to \$0\.18\d+, and \$0\.0100 of \$0\.01 is left$/,
      ),
    });
    // An approved extension without numbers goes past the worst case, so the call can be made.
    expect(limitExtension(record, "maxCostUsd", undefined, new Date()).maxCostUsd).toBeGreaterThan(
      record.costShortfall?.neededUsd ?? 0,
    );
    expect(await loop.eventsOf(goal.goalId, "cost.limit_reached")).toHaveLength(1);
  });

  it("makes the call once the budget is raised, and forgets the shortfall", async () => {
    // Prepare
    const { goal, model, loop, loaded } = await budgetGoal(0.01);
    await stopAtCostLimit(loop.ports(), loaded, () => loop.verifyAndReason(loaded));
    const published: HumanInputEvent[] = [];

    // Act
    const limits = await raiseLimits(
      {
        goals: table.adapters.goals,
        publisher: { publish: async (event) => void published.push(event) },
        now: loop.now,
      },
      { goalId: goal.goalId, patch: { maxCostUsd: 1 }, by: "ana", channel: "api" },
    );
    const answers = await loop.continue({ ...loaded, next: "verify" });

    // Assess
    expect(limits.maxCostUsd).toBe(1);
    expect(published).toEqual([]);
    expect(answers.at(-1)?.next).toBe("completed");
    expect(model.requests).toHaveLength(1);
    const record = await loop.goal(goal.goalId);
    expect(record.costShortfall).toBeUndefined();
    expect(record.usage.costUsd).toBeGreaterThan(0);
  });

  it("answers a limit decision the goal waits on, with the new limits as the human's own", async () => {
    // Prepare: the goal waits on its cost limit
    const { goal, loop, loaded } = await budgetGoal(0.01);
    const asked = await stopAtCostLimit(loop.ports(), loaded, () => loop.verifyAndReason(loaded));
    const answered: StepResult[] = [];
    await requestApproval(
      {
        goals: table.adapters.goals,
        outbox: table.adapters.outbox,
        callback: { succeed: async (_token, output) => void answered.push(output) },
        now: loop.now,
        newApprovalId: () => `ap-${goal.goalId}`,
      },
      { approvalTimeoutSeconds: 3600 },
      { ...asked, next: "limit_decision", taskToken: "token" },
    );
    const published: HumanInputEvent[] = [];
    const ports = {
      goals: table.adapters.goals,
      publisher: { publish: async (event: HumanInputEvent) => void published.push(event) },
      now: loop.now,
    };

    // Act
    const tooLow = raiseLimits(ports, {
      goalId: goal.goalId,
      patch: { maxCostUsd: 0.02 },
      by: "ana",
      channel: "api",
    });
    await expect(tooLow).rejects.toMatchObject({ name: "ValidationError", issues: [{ path: "maxCostUsd" }] });
    const limits = await raiseLimits(ports, {
      goalId: goal.goalId,
      patch: { maxCostUsd: 2 },
      by: "ana",
      channel: "api",
    });

    // Assess
    expect((await loop.goal(goal.goalId)).waitingFor).toMatchObject({ kind: "decision" });
    expect(limits.maxCostUsd).toBe(2);
    expect(published).toEqual([
      expect.objectContaining({
        detailType: "Approval Decided",
        detail: expect.objectContaining({
          decision: "approve",
          comment: '{"maxCostUsd":2}',
          decidedBy: "ana",
        }),
      }),
    ]);
  });

  it("pays each judge call of one step from what the calls before it left", async () => {
    // Prepare: two judged checks; the first judge call costs about $0.40 (26,500 tokens out)
    const judged = (id: string) => ({
      id,
      description: `The haiku is ${id}`,
      verify: { kind: "model_judge" as const, rubric: `The haiku in out/haiku.md reads ${id}` },
    });
    const goal = await createGoal(
      table,
      reactSpec({
        models: { default: PRICED },
        limits: { maxCostUsd: 0.4, maxSteps: 10 },
        successChecks: [judged("calm"), judged("short")],
      }),
    );
    const costly = {
      ...says("PASS"),
      usage: { inputTokens: 100, outputTokens: 26_500, cacheReadTokens: 0, cacheWriteTokens: 0 },
    };
    const model = new ScriptedModel({
      reason: [writes("out/haiku.md", "autumn")],
      judge: [costly, says("PASS")],
    });
    const loop = new ReactLoopDriver(table, model);

    // Act
    const run = loop.run(goal.goalId);

    // Assess: the second judge call's worst case no longer fits, so it is never made
    await expect(run).rejects.toMatchObject({ name: "CostLimitReached", role: "judge" });
    expect(model.requestsFor("judge")).toHaveLength(1);
    const record = await loop.goal(goal.goalId);
    expect(record.status).toBe("running");
    expect(record.usage.costUsd).toBeLessThanOrEqual(0.4);
  });

  it("reuses a checkpointed call whatever the budget says: it is paid already", async () => {
    // Prepare
    const { goal, model, loop } = await budgetGoal(1);
    const key = { goalId: goal.goalId, runId: "r1", iteration: 0, role: "judge" as const, ordinal: 0 };
    const request = (call: number) => ({
      modelId: PRICED,
      goalId: goal.goalId,
      role: "judge" as const,
      call,
      system: [{ text: "judge" }],
      messages: [{ role: "user" as const, content: [{ text: "is it done?" }] }],
      maxTokens: 512,
    });
    const scripted = new ScriptedModel({ judge: [says("yes")] });
    const ports = { ...loop.ports(), model: scripted };

    // Act
    const first = await checkpointedCall(ports, key, request, { budget: { remainingUsd: 1 } });
    const again = await checkpointedCall(ports, key, request, { budget: { remainingUsd: 0 } });
    const refused = checkpointedCall(ports, { ...key, ordinal: 1 }, request, {
      budget: { remainingUsd: 0.001 },
    });

    // Assess
    expect(again).toEqual(first);
    await expect(refused).rejects.toMatchObject({ name: "CostLimitReached", role: "judge" });
    expect(scripted.requests).toHaveLength(1);
    expect(model.requests).toHaveLength(0);
    expect(worstCaseCostUsd(request(0))).toBeGreaterThan(512 * 15e-6);
  });
});
