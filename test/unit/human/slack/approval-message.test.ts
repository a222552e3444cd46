import { describe, expect, it } from "vitest";
import { toSnapshot } from "../../../../lambdas/core/goal/snapshot";
import {
  approvalOutcomeMessage,
  approvalRequestMessage,
} from "../../../../lambdas/core/human/slack/approval-message";
import { escapeMrkdwn } from "../../../../lambdas/core/human/slack/block-kit";
import { aGoalRecord } from "../../../support/goal-record-builder";
import { aPendingApproval, SECRET_TOKEN } from "./support";

const goal = aGoalRecord({
  steps: 4,
  usage: {
    inputTokens: 1,
    outputTokens: 1,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    modelCalls: 2,
    costUsd: 0.0123,
  },
});
const approval = aPendingApproval(goal.goalId, goal.tenantId);

describe("approvalRequestMessage", () => {
  it("shows the pending action and the goal's snapshot, with Approve and Reject buttons carrying only the approval id", () => {
    // Act
    const message = approvalRequestMessage(approval, toSnapshot(goal));

    // Assess
    const actions = message.blocks.find((block) => block.type === "actions");
    expect(actions).toEqual({
      type: "actions",
      block_id: "approval",
      elements: [
        expect.objectContaining({ action_id: "approve", value: approval.approvalId, style: "primary" }),
        expect.objectContaining({ action_id: "reject", value: approval.approvalId, style: "danger" }),
      ],
    });
    const text = JSON.stringify(message.blocks);
    expect(text).toContain("notify &lt;!channel&gt; on #ops: release 1.2");
    expect(text).toContain(goal.spec.objective);
    expect(text).toContain("*Status*\\nrunning");
    expect(text).toContain("*Step*\\n4");
    expect(text).toContain("*Cost*\\n$0.0123");
    expect(text).toContain("Unsatisfied: haiku-written");
  });

  it("never contains the task token, even when handed the whole approval record", () => {
    // Act
    const request = approvalRequestMessage(approval, toSnapshot(goal));
    const decided = approvalOutcomeMessage(
      {
        kind: "decided",
        approval: {
          ...approval,
          status: "approved",
          decision: { decision: "approve", decidedBy: "slack:U0ANA", decidedAt: "2026-03-01T09:30:00.000Z" },
        },
      },
      toSnapshot(goal),
    );

    // Assess
    expect(JSON.stringify(request)).not.toContain(SECRET_TOKEN);
    expect(JSON.stringify(decided)).not.toContain(SECRET_TOKEN);
  });

  it("makes goal text inert: no mention, link or channel ping can come from an objective", () => {
    // Prepare
    const hostile = aGoalRecord({
      spec: { ...goal.spec, objective: "Ping <!here> and <https://evil.example|click> & go" },
    });

    // Act
    const text = JSON.stringify(approvalRequestMessage(approval, toSnapshot(hostile)).blocks);

    // Assess
    expect(text).not.toContain("<!here>");
    expect(text).toContain(escapeMrkdwn("<!here>"));
    expect(text).toContain("&amp; go");
  });
});

describe("approvalOutcomeMessage", () => {
  it("replaces the buttons with who decided what and when", () => {
    // Act
    const message = approvalOutcomeMessage(
      {
        kind: "decided",
        approval: {
          ...approval,
          status: "rejected",
          decision: { decision: "reject", decidedBy: "slack:U0BEN", decidedAt: "2026-03-01T09:30:00.000Z" },
        },
      },
      toSnapshot(goal),
    );

    // Assess
    expect(message.blocks.some((block) => block.type === "actions")).toBe(false);
    const text = JSON.stringify(message.blocks);
    expect(text).toContain(":x: *Rejected* by <@U0BEN> at <!date^1772357400^");
  });

  it("says an approval decided through another door was decided by that person, as plain text", () => {
    // Act
    const message = approvalOutcomeMessage(
      {
        kind: "already_decided",
        approval: {
          ...approval,
          status: "approved",
          decision: {
            decision: "approve",
            decidedBy: "<@U0EVIL> cli",
            decidedAt: "2026-03-01T09:30:00.000Z",
          },
        },
      },
      undefined,
    );

    // Assess
    const text = JSON.stringify(message.blocks);
    expect(text).toContain("Already decided: :white_check_mark: *Approved* by &lt;@U0EVIL&gt; cli");
    expect(text).toContain("snapshot unavailable");
  });

  it("says an expired approval expired", () => {
    // Act
    const message = approvalOutcomeMessage(
      { kind: "expired", approval: { ...approval, status: "expired" } },
      undefined,
    );

    // Assess
    expect(JSON.stringify(message.blocks)).toContain("*Expired*");
    expect(message.blocks.some((block) => block.type === "actions")).toBe(false);
  });
});
