import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GoalLoopsApiError } from "../../lib/client/index";
import { allEvents, type E2eStack, followGoal } from "./local-stack-harness";
import { sharedE2eStack } from "./shared-e2e-stack";

/**
 * More outages than one run's retry budget (3 retries, 4 attempts) can sit out, then an answer.
 * (Bedrock's throttling is no failure: it waits for capacity, test/e2e/capacity.test.ts.)
 */
const STORM = 6;

const stormFixture = {
  reason: [
    { toolUse: { name: "workspace_write", input: { path: "draft.md", content: "first notes" } } },
    ...Array.from({ length: STORM }, () => ({ error: "ServiceUnavailableException" })),
    { toolUse: { name: "workspace_write", input: { path: "report.md", content: "report: done" } } },
  ],
};

describe("retrying a failed goal over HTTP", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await sharedE2eStack();
    e2e.writeFixture("outage-storm", stormFixture);
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it("fails after an outage longer than the retry budget; POST /retry completes it without paying a call twice", async () => {
    // Prepare
    const accepted = await e2e.client.submitGoal({
      objective: "Write draft notes, then the report",
      successChecks: [
        {
          id: "report",
          description: "report.md says it is done",
          verify: { kind: "artifact", path: "report.md", contains: "done" },
        },
      ],
      limits: { maxSteps: 10 },
      pattern: "react",
      models: { default: "scripted:outage-storm" },
    });
    const failed = (await followGoal(e2e.client, accepted.goalId)).final;
    const callsBeforeRetry = e2e.stack.bedrock.callCount({
      goalId: accepted.goalId,
      role: "reason",
      call: 1,
    });

    // Act
    const refusedBefore = await e2e.client.resume(accepted.goalId).catch((error: unknown) => error);
    const requested = await e2e.client.retry(accepted.goalId);
    let final = await e2e.client.getGoal(accepted.goalId);
    for (const deadline = Date.now() + 60_000; final.status === "failed" && Date.now() < deadline; ) {
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 50));
      final = await e2e.client.getGoal(accepted.goalId);
    }
    final = (await followGoal(e2e.client, accepted.goalId, { deadlineMs: 60_000 })).final;
    const refusedAfter = await e2e.client.retry(accepted.goalId).catch((error: unknown) => error);

    // Assess
    expect(failed).toMatchObject({ status: "failed" });
    expect(callsBeforeRetry).toBe(4);
    expect(refusedBefore).toBeInstanceOf(GoalLoopsApiError);
    expect(requested).toEqual({ goalId: accepted.goalId, requested: "retry" });
    expect(final.status).toBe("completed");
    expect(final.runId).toBe("r2");
    // Two calls paid: the draft (call 0, once) and the report (call 1, after the storm).
    expect(final.usage.modelCalls).toBe(2);
    expect(e2e.stack.bedrock.callCount({ goalId: accepted.goalId, role: "reason", call: 0 })).toBe(1);
    expect(e2e.stack.bedrock.callCount({ goalId: accepted.goalId, role: "reason", call: 1 })).toBe(STORM + 1);
    expect(refusedAfter).toMatchObject({ status: 409 });
    const types = (await allEvents(e2e.client, accepted.goalId)).map((event) => event.type);
    expect(types.filter((type) => type === "goal.failed")).toHaveLength(1);
    expect(types).toContain("goal.retried");
  }, 120_000);
});
