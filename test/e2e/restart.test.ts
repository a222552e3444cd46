import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventBridgeClient } from "@aws-sdk/client-eventbridge";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterAll, describe, expect, it } from "vitest";
import { DynamoDbGoalStore } from "../../lambdas/adapters/dynamodb/dynamodb-goal-store";
import { EventBridgePublisher } from "../../lambdas/adapters/eventbridge/eventbridge-publisher";
import { decideApprovalFromDoor } from "../../lambdas/core/human/decide-approval";
import { GoalLoopsApiError, GoalLoopsClient } from "../../lib/client/index";
import type { LocalStack } from "../../lib/local/local-stack";
import { LOCAL_ENVIRONMENT } from "../../lib/local/shared/cloud-assembly-model";
import { localDynamoClient } from "../../lib/local/storage/dynamo";
import { gatedNotifyGoal } from "./gated-notify-goal";
import { allEvents, type E2eStack, followGoal, freePort, startE2eStack } from "./local-stack-harness";

/** A goal that must tell ops through `notify` (irreversible, granted, not pre-authorized). */
const NOTIFY_GOAL = gatedNotifyGoal({
  objective: "Tell ops that release 3.0 is out",
  fixture: "restart-notify",
});

/** A function variable of the stack, as every function that needs it reads it. */
function stackVariable(stack: LocalStack, name: string): string {
  const value = stack.model.functions.map((fn) => fn.environment[name]).find((found) => found !== undefined);
  if (value === undefined) throw new Error(`no function of the stack has ${name}`);
  return value;
}

/** The doors' path to a decision: the store's conditional decide, then `Approval Decided` on the local bus. */
function decideThroughTheBus(stack: LocalStack, approvalId: string) {
  const client = DynamoDBDocumentClient.from(localDynamoClient(stack.endpoints.dynamodb));
  const goals = new DynamoDbGoalStore({ client, tableName: stackVariable(stack, "GOAL_TABLE_NAME") });
  const eventbridge = new EventBridgeClient({
    endpoint: stack.endpoints.eventbridge,
    region: LOCAL_ENVIRONMENT.region,
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  const publisher = new EventBridgePublisher(eventbridge, stackVariable(stack, "GOAL_EVENT_BUS_NAME"));
  return {
    goals,
    decide: () =>
      decideApprovalFromDoor(
        { goals, publisher, now: () => new Date() },
        { approvalId, decision: "approve", decidedBy: "ana", channel: "api" },
      ),
  };
}

/** Waits until the goal no longer waits: the decision travels over the bus to the resume handler. */
async function untilWoken(client: GoalLoopsClient, goalId: string, deadlineMs = 30_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while ((await client.getGoal(goalId)).status === "waiting") {
    if (Date.now() > deadline)
      throw new Error(`goal ${goalId} still waits ${deadlineMs} ms after the decision`);
    await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
  }
}

/**
 * `POST /approvals/{id}` the moment the API answers (a stack still starting refuses with a 5xx or
 * not at all): the decision lands while the restarted stack re-attaches its goals.
 */
async function approveAsSoonAsAnswered(client: GoalLoopsClient, approvalId: string, deadlineMs = 60_000) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    try {
      return await client.decideApproval(approvalId, "approve");
    } catch (error) {
      const refusedForGood = error instanceof GoalLoopsApiError && error.status < 500;
      if (refusedForGood || Date.now() > deadline) throw error;
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 10));
    }
  }
}

describe("restarting the local stack while a goal waits for approval", () => {
  const stateDir = mkdtempSync(join(tmpdir(), "goal-loops-restart-"));
  let first: E2eStack | undefined;
  let second: E2eStack | undefined;

  afterAll(async () => {
    await first?.stop();
    await second?.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("keeps the approval pending across the restart, and approving it completes the goal with one notify", async () => {
    // Prepare: a goal waits for approval A, then the stack stops
    first = await startE2eStack({ stateDir });
    const accepted = await first.client.submitGoal(NOTIFY_GOAL);
    const before = (await followGoal(first.client, accepted.goalId)).final;
    const approvalId = before.waitingFor?.approvalId ?? "";
    await first.stop();
    first = undefined;

    // Act: a new stack on the same state folder, then approve A
    second = await startE2eStack({ stateDir });
    const { stack, client } = second;
    const after = await client.getGoal(accepted.goalId);
    const door = decideThroughTheBus(stack, approvalId);
    const pending = await door.goals.getApproval(approvalId);
    const decided = await door.decide();
    await untilWoken(client, accepted.goalId);
    const final = (await followGoal(client, accepted.goalId, { deadlineMs: 30_000 })).final;

    // Assess
    expect(before).toMatchObject({ status: "waiting", runId: "r1", waitingFor: { kind: "approval" } });
    expect(approvalId).not.toBe("");
    expect(after).toMatchObject({
      status: "waiting",
      runId: "r2",
      waitingFor: { kind: "approval", approvalId },
    });
    expect(pending).toMatchObject({ status: "pending", goalId: accepted.goalId });
    expect(decided.outcome).toBe("decided");
    expect(final.status).toBe("completed");
    const notifies = (await stack.readOutbox()).filter(
      (entry) => entry.goalId === accepted.goalId && entry.channel === "ops",
    );
    expect(notifies).toHaveLength(1);
    const types = (await allEvents(client, accepted.goalId)).map((event) => event.type);
    expect(types.filter((type) => type === "run.reattached")).toHaveLength(1);
    expect(types.filter((type) => type === "approval.requested")).toHaveLength(1);
  }, 90_000);

  it("completes with one notify when the approval is decided the moment the restarted stack answers", async () => {
    // Prepare: a goal waits for approval A, then the stack stops
    const folder = mkdtempSync(join(tmpdir(), "goal-loops-restart-at-once-"));
    try {
      const before = await startE2eStack({ stateDir: folder });
      const accepted = await before.client.submitGoal(NOTIFY_GOAL);
      const waiting = (await followGoal(before.client, accepted.goalId)).final;
      const approvalId = waiting.waitingFor?.approvalId ?? "";
      await before.stop();

      // Act: restart on the same folder, and approve A while it is still starting
      const port = await freePort();
      const starting = startE2eStack({ stateDir: folder, port });
      const decided = await approveAsSoonAsAnswered(
        new GoalLoopsClient(`http://127.0.0.1:${port}`),
        approvalId,
      );
      const after = await starting;
      try {
        await untilWoken(after.client, accepted.goalId);
        const final = (await followGoal(after.client, accepted.goalId, { deadlineMs: 30_000 })).final;
        const notifies = (await after.stack.readOutbox()).filter(
          (entry) => entry.goalId === accepted.goalId && entry.channel === "ops",
        );

        // Assess
        expect(waiting).toMatchObject({ status: "waiting", waitingFor: { kind: "approval" } });
        expect(decided).toMatchObject({ approvalId, status: "approved" });
        expect(final.status).toBe("completed");
        expect(notifies).toHaveLength(1);
        const types = (await allEvents(after.client, accepted.goalId)).map((event) => event.type);
        expect(types.filter((type) => type === "approval.requested")).toHaveLength(1);
        expect(types.filter((type) => type === "approval.decided")).toHaveLength(1);
      } finally {
        await after.stop();
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 120_000);
});
