import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allEvents, type E2eStack, startE2eStack } from "./local-stack-harness";

const ENDED = new Set(["completed", "failed", "paused", "terminated", "cancelled"]);

/** Two irreversible notifies, one per iteration; each run continues as new after one iteration. */
const TWO_NOTIFIES = {
  reason: [
    { toolUse: { name: "notify", input: { channel: "ops", message: "release 4.0 is out" } } },
    { toolUse: { name: "notify", input: { channel: "support", message: "release 4.0 is out" } } },
  ],
};

const notified = (channel: string) => ({
  id: `${channel}-told`,
  description: `${channel} got the news`,
  verify: { kind: "tool_result", tool: "notify", expect: { contains: `"channel":"${channel}"` } },
});

describe("decisions taken the moment they are asked for, across continue-as-new boundaries", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await startE2eStack({ continueAsNewAfter: 1 });
    e2e.writeFixture("two-notifies", TWO_NOTIFIES);
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it("acts on each approval once, in whichever run it lands, and completes with one notify per channel", async () => {
    // Prepare
    const accepted = await e2e.client.submitGoal({
      objective: "Tell ops, then support, that release 4.0 is out",
      successChecks: [notified("ops"), notified("support")],
      tools: ["notify"],
      limits: { maxSteps: 10 },
      pattern: "react",
      models: { default: "scripted:two-notifies" },
    });

    // Act: approve every approval of the goal the moment it is listed, until the goal ends
    const decided: string[] = [];
    const deadline = Date.now() + 60_000;
    let final = await e2e.client.getGoal(accepted.goalId);
    while (!ENDED.has(final.status) && Date.now() < deadline) {
      for (const approval of await e2e.client.listApprovals("pending")) {
        if (approval.goalId !== accepted.goalId || decided.includes(approval.approvalId)) continue;
        await e2e.client.decideApproval(approval.approvalId, "approve");
        decided.push(approval.approvalId);
      }
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 5));
      final = await e2e.client.getGoal(accepted.goalId);
    }

    // Assess
    expect(decided).toHaveLength(2);
    expect(final.status).toBe("completed");
    // The outbox also holds the approval requests (channel `api`); the notifies went to ops and support.
    const notifies = (await e2e.stack.readOutbox()).filter(
      (entry) => entry.goalId === accepted.goalId && entry.channel !== "api",
    );
    expect(notifies.map((entry) => entry.channel).sort()).toEqual(["ops", "support"]);
    const types = (await allEvents(e2e.client, accepted.goalId)).map((event) => event.type);
    expect(types.filter((type) => type === "run.continued").length).toBeGreaterThanOrEqual(1);
    expect(types.filter((type) => type === "approval.decided")).toHaveLength(2);
    expect(types.filter((type) => type === "goal.woken")).toHaveLength(2);
  }, 90_000);
});
