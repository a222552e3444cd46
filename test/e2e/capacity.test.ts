import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GoalSnapshot } from "../../lambdas/core/goal/goal-record";
import { checkInvariants } from "../../lambdas/core/goal/invariants";
import { allEvents, type E2eStack, followGoal, PROJECT_DIR, startE2eStack } from "./local-stack-harness";

/**
 * Many goals at once on one model quota (DESIGN §4: capacity is not failure). The end-to-end
 * configuration declares `models.quotas` for `scripted:capacity-burst` (240 requests a minute, 2 s of
 * them at once); the local endpoint enforces the same quota as Bedrock would, and the capacity
 * governor paces every goal's calls within it. (At 480 a minute the waits grew too short for the
 * poller below to see one on a loaded machine: the test failed there, so the quota stays.)
 */
const releaseSummary = JSON.parse(
  readFileSync(join(PROJECT_DIR, "examples", "goals", "write-release-summary.json"), "utf8"),
) as Record<string, unknown>;
const goalOn = (model: string, index: number) => ({
  ...releaseSummary,
  objective: `Write release summary number ${index} for goal-loops 2.0 to summary.md in the workspace.`,
  models: { default: model },
});

describe("sixty goals at once on one model quota", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await startE2eStack({ e2eConfig: true });
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it("completes every goal, pays each call once, and shows the waits while the quota paces them", async () => {
    // Prepare + Act: 60 ReAct goals of two calls each, posted at once
    const accepted = await Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        e2e.client.submitGoal(goalOn("scripted:capacity-burst", index)),
      ),
    );
    const seenWaiting: GoalSnapshot[] = [];
    const snapshotsBroken: string[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        for (const snapshot of (await e2e.client.listGoals({ status: "running", limit: 100 })).items) {
          snapshotsBroken.push(...checkInvariants(snapshot).map((broken) => `${snapshot.goalId}: ${broken}`));
          if (snapshot.activity?.kind === "waiting_for_capacity") seenWaiting.push(snapshot);
        }
        await new Promise((resolveDelay) => setTimeout(resolveDelay, 500));
      }
    })();
    const finals = await Promise.all(
      accepted.map(({ goalId }) => followGoal(e2e.client, goalId, { deadlineMs: 240_000, pollMs: 2_000 })),
    );
    polling = false;
    await poller;

    // Assess: all completed, none failed, every snapshot kept the invariants
    expect(finals.map(({ final }) => final.status)).toEqual(accepted.map(() => "completed"));
    expect(snapshotsBroken).toEqual([]);
    // Each model call was answered (and paid) once
    for (const { goalId } of accepted) {
      for (const call of [0, 1])
        expect(e2e.stack.bedrock.callCount({ goalId, role: "reason", call })).toBe(1);
    }
    // The governor paced them: unpaced, the first round alone meets a throttle per goal but a few.
    // A loaded machine delays a booked call into its neighbour's second, so a few may still be
    // refused (and wait); the bench prints the ratio against its budget.
    expect(e2e.stack.bedrock.quotaRefusals()).toBeLessThan(accepted.length / 2);
    // The quota was short: goals waited in the Wait state, running, and said so
    expect(seenWaiting.length).toBeGreaterThan(0);
    expect(seenWaiting[0]?.status).toBe("running");
    expect(seenWaiting[0]?.activity).toMatchObject({ model: "scripted:capacity-burst", role: "reason" });
    const waited = seenWaiting[0]?.goalId ?? "";
    const types = (await allEvents(e2e.client, waited)).map((event) => event.type);
    expect(types).toContain("capacity.waiting");
    expect(types.indexOf("capacity.acquired")).toBeGreaterThan(types.indexOf("capacity.waiting"));
    // Every answered call reached the endpoint once
    const received = e2e.stack.bedrock
      .exchanges()
      .filter(
        (exchange) => exchange.event === "received" && accepted.some((a) => a.goalId === exchange.goalId),
      );
    expect(received).toHaveLength(120);
  }, 300_000);
});

describe("a model whose account quota is lower than anything the deployment knows", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    // The endpoint throttles every model past 120 requests a minute; no goal's model has models.quotas.
    e2e = await startE2eStack({
      e2eConfig: true,
      modelQuota: { requestsPerMinute: 120, tokensPerMinute: 100_000_000, burstSeconds: 1 },
    });
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it("waits out Bedrock's throttles instead of failing the goals, and pays each call once", async () => {
    // Prepare + Act: 15 goals at once on the README's model, which the endpoint throttles
    const accepted = await Promise.all(
      Array.from({ length: 15 }, (_, index) =>
        e2e.client.submitGoal(goalOn("scripted:write-release-summary", index)),
      ),
    );
    const finals = await Promise.all(
      accepted.map(({ goalId }) => followGoal(e2e.client, goalId, { deadlineMs: 240_000, pollMs: 2_000 })),
    );

    // Assess: the throttles happened, and every goal completed on one answered call per position
    expect(e2e.stack.bedrock.quotaRefusals()).toBeGreaterThan(0);
    expect(finals.map(({ final }) => final.status)).toEqual(accepted.map(() => "completed"));
    // Each goal's event types (final goals: the log is complete), one listing per goal
    const eventTypes: string[][] = [];
    for (const { goalId } of accepted) {
      for (const call of [0, 1])
        expect(e2e.stack.bedrock.callCount({ goalId, role: "reason", call })).toBe(1);
      const types = (await allEvents(e2e.client, goalId)).map((event) => event.type);
      expect(types.filter((type) => type === "model.usage")).toHaveLength(2);
      eventTypes.push(types);
    }
    expect(eventTypes.some((types) => types.includes("capacity.waiting"))).toBe(true);
  }, 300_000);
});
