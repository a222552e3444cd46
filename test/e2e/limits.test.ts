import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allEvents, type E2eStack, followGoal, startE2eStack } from "./local-stack-harness";

/** Billed like Claude Sonnet ($3 / $15 per 1M tokens): each turn costs $0.063 (1,000 in, 4,000 out). */
const USAGE = { inputTokens: 1000, outputTokens: 4000 };
const pricedFixture = {
  reason: [
    { toolUse: { name: "workspace_write", input: { path: "draft.md", content: "draft" } }, usage: USAGE },
    {
      toolUse: { name: "workspace_write", input: { path: "report.md", content: "report: done" } },
      usage: USAGE,
    },
  ],
};

describe("limits on the local stack", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await startE2eStack();
    e2e.writeFixture("priced-two-turns", pricedFixture);
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it("waits at maxCostUsd before a call the budget cannot pay for, then runs on after POST /limits", async () => {
    // Prepare: $0.10 pays for one turn ($0.063), not for the second's worst case (4,096 tokens out)
    const accepted = await e2e.client.submitGoal({
      objective: "Write a draft, then the report",
      successChecks: [
        {
          id: "report",
          description: "report.md is done",
          verify: { kind: "artifact", path: "report.md", contains: "done" },
        },
      ],
      limits: { maxCostUsd: 0.1, maxSteps: 10 },
      pattern: "react",
      models: { default: "scripted:priced-two-turns" },
    });

    // Act
    const waiting = (await followGoal(e2e.client, accepted.goalId)).final;
    const raised = await e2e.client.setLimits(accepted.goalId, { maxCostUsd: 0.5 });
    let final = await e2e.client.getGoal(accepted.goalId);
    for (const deadline = Date.now() + 30_000; final.status === "waiting" && Date.now() < deadline; ) {
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 50));
      final = await e2e.client.getGoal(accepted.goalId);
    }
    final = (await followGoal(e2e.client, accepted.goalId)).final;

    // Assess
    expect(waiting).toMatchObject({
      status: "waiting",
      waitingFor: { kind: "decision" },
      usage: { modelCalls: 1 },
    });
    expect(waiting.waitingFor?.reason).toMatch(
      /^maxCostUsd reached: the next reason call may cost up to \$0\.06/,
    );
    expect(waiting.usage.costUsd).toBeLessThanOrEqual(0.1);
    expect(raised.limits).toMatchObject({ maxCostUsd: 0.5 });
    expect(final).toMatchObject({ status: "completed", usage: { modelCalls: 2 } });
    expect(final.limits).toMatchObject({ maxCostUsd: 0.5 });
    const types = (await allEvents(e2e.client, accepted.goalId)).map((event) => event.type);
    expect(types).toContain("cost.limit_reached");
    expect(types).toContain("limits.extended");
  }, 60_000);

  it("raises the limits of a running goal directly, refuses a final goal's, and names a bad field", async () => {
    // Prepare
    const accepted = await e2e.client.submitGoal({
      objective: "Write the report",
      successChecks: [
        {
          id: "report",
          description: "report.md is done",
          verify: { kind: "artifact", path: "report.md", contains: "done" },
        },
      ],
      limits: { maxSteps: 10 },
      pattern: "react",
      models: { default: "scripted:write-release-summary" },
    });

    // Act
    const badField = await e2e.client
      .setLimits(accepted.goalId, { maxSteps: -1 })
      .catch((error: unknown) => error);
    const raised = await e2e.client
      .setLimits(accepted.goalId, { maxSteps: 40 })
      .catch((error: unknown) => error);
    const settled = (await followGoal(e2e.client, accepted.goalId)).final;
    const onFinal = await e2e.client
      .setLimits(accepted.goalId, { maxSteps: 50 })
      .catch((error: unknown) => error);

    // Assess
    expect(badField).toMatchObject({
      status: 400,
      body: { code: "ValidationError", issues: [{ path: "maxSteps" }] },
    });
    expect(raised).toMatchObject({ goalId: accepted.goalId, limits: { maxSteps: 40 } });
    expect(settled.status).toBe("completed");
    expect(onFinal).toMatchObject({ status: 409, body: { code: "InvalidStatus" } });
  }, 60_000);
});
