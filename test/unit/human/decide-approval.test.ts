import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../../../lambdas/core/goal/goal-lifecycle";
import { decideApprovalFromDoor } from "../../../lambdas/core/human/decide-approval";
import { createGoal, type GoalTable, startGoalTable } from "../loop/support";
import { aPendingApproval, RecordingPublisher, SECRET_TOKEN } from "./support";

const BEFORE_EXPIRY = () => new Date("2026-03-01T09:30:00.000Z");
const AFTER_EXPIRY = () => new Date("2026-03-01T11:00:00.000Z");

describe("decideApprovalFromDoor", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });
  afterAll(() => table.stop());

  async function pendingApproval(goalWaits = false) {
    const goal = await createGoal(table);
    const approval = aPendingApproval(goal.goalId);
    await table.adapters.goals.putApproval(approval);
    if (goalWaits) {
      const stored = await table.adapters.goals.getGoal(goal.goalId);
      if (!stored) throw new Error("goal vanished");
      const change = waitFor(
        stored.record,
        { kind: "approval", approvalId: approval.approvalId, reason: "irreversible tool notify" },
        { eventType: "Approval Decided", approvalId: approval.approvalId, revision: 1 },
        BEFORE_EXPIRY(),
      );
      await table.adapters.goals.commit(change.record, stored.version, change.events);
    }
    return approval;
  }

  it("decides a pending approval once and publishes Approval Decided without the token", async () => {
    // Prepare
    const approval = await pendingApproval();
    const publisher = new RecordingPublisher();

    // Act
    const result = await decideApprovalFromDoor(
      { goals: table.adapters.goals, publisher, now: BEFORE_EXPIRY },
      {
        approvalId: approval.approvalId,
        decision: "approve",
        decidedBy: "ana",
        comment: "ok",
        channel: "api",
      },
    );

    // Assess
    expect(result).toMatchObject({ outcome: "decided", approval: { status: "approved" } });
    expect(publisher.events).toEqual([
      {
        detailType: "Approval Decided",
        detail: {
          approvalId: approval.approvalId,
          goalId: approval.goalId,
          decision: "approve",
          decidedBy: "ana",
          comment: "ok",
          channel: "api",
          decidedAt: BEFORE_EXPIRY().toISOString(),
        },
      },
    ]);
    expect(JSON.stringify(publisher.events)).not.toContain(SECRET_TOKEN);
  });

  it("lets exactly one of 20 concurrent decisions win; the others are already_decided", async () => {
    // Prepare
    const approval = await pendingApproval();
    const publisher = new RecordingPublisher();
    const ports = { goals: table.adapters.goals, publisher, now: BEFORE_EXPIRY };

    // Act
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        decideApprovalFromDoor(ports, {
          approvalId: approval.approvalId,
          decision: index % 2 === 0 ? "approve" : "reject",
          decidedBy: `person-${index}`,
          channel: "api",
        }),
      ),
    );

    // Assess
    const outcomes = results.map((result) => result.outcome);
    expect(outcomes.filter((outcome) => outcome === "decided")).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === "already_decided")).toHaveLength(19);
    expect(publisher.events).toHaveLength(1);
  });

  it("marks an approval past expiresAt expired and publishes nothing", async () => {
    // Prepare
    const approval = await pendingApproval();
    const publisher = new RecordingPublisher();

    // Act
    const result = await decideApprovalFromDoor(
      { goals: table.adapters.goals, publisher, now: AFTER_EXPIRY },
      { approvalId: approval.approvalId, decision: "approve", decidedBy: "ana", channel: "slack" },
    );

    // Assess
    expect(result).toMatchObject({ outcome: "expired", approval: { status: "expired" } });
    expect((await table.adapters.goals.getApproval(approval.approvalId))?.status).toBe("expired");
    expect(publisher.events).toEqual([]);
  });

  it("answers not_found for an unknown id and for another tenant's approval", async () => {
    // Prepare
    const approval = await pendingApproval();
    const ports = { goals: table.adapters.goals, publisher: new RecordingPublisher(), now: BEFORE_EXPIRY };
    const decide = { decision: "approve", decidedBy: "ana", channel: "api" } as const;

    // Act
    const unknown = await decideApprovalFromDoor(ports, { ...decide, approvalId: "ap-missing" });
    const foreign = await decideApprovalFromDoor(ports, {
      ...decide,
      approvalId: approval.approvalId,
      tenantId: "tenant-2",
    });

    // Assess
    expect(unknown).toEqual({ outcome: "not_found" });
    expect(foreign).toEqual({ outcome: "not_found" });
    expect((await table.adapters.goals.getApproval(approval.approvalId))?.status).toBe("pending");
  });

  it("re-publishes when the same person retries after a lost publish while the goal still waits", async () => {
    // Prepare
    const approval = await pendingApproval(true);
    const publisher = new RecordingPublisher(1);
    const ports = { goals: table.adapters.goals, publisher, now: BEFORE_EXPIRY };
    const input = {
      approvalId: approval.approvalId,
      decision: "reject",
      decidedBy: "ana",
      channel: "email",
    } as const;

    // Act
    const first = await decideApprovalFromDoor(ports, input).catch((error: unknown) => error);
    const retry = await decideApprovalFromDoor(ports, input);

    // Assess
    expect(first).toBeInstanceOf(Error);
    expect(retry).toMatchObject({ outcome: "already_decided", approval: { status: "rejected" } });
    expect(publisher.events.map((event) => event.detail)).toMatchObject([
      { decision: "reject", channel: "email" },
    ]);
  });
});
