import { describe, expect, it } from "vitest";
import { GoalSpecSchema } from "../../../lambdas/core/goal/goal-spec";
import type { EmailApprovalRequest } from "../../../lambdas/core/human/email/email-approval-notifier";
import { type ApprovalNotifiers, notifyApprovalRequested } from "../../../lambdas/core/human/notify-approval";
import type { Approval } from "../../../lambdas/core/ports/goal-store";
import { aGoalRecord } from "../../support/goal-record-builder";
import { InMemoryOutbox } from "../tools/support";

const TASK_TOKEN = "AAAAKgAAAAIAAAAA-task-token-never-shown";
const NOW = new Date("2026-03-01T09:30:00.000Z");

function aGoal(approval: Record<string, unknown>) {
  const base = aGoalRecord();
  return aGoalRecord({ goalId: base.goalId, spec: GoalSpecSchema.parse({ ...base.spec, approval }) });
}

function anApproval(goalId: string): Approval {
  return {
    approvalId: "ap-0123456789abcdef",
    goalId,
    tenantId: "tenant-a",
    runId: "r1",
    status: "pending",
    action: { kind: "tool", summary: "notify #ops", fingerprint: "notify:abc" },
    revision: 1,
    taskToken: TASK_TOKEN,
    requestedAt: NOW.toISOString(),
    expiresAt: "2026-03-02T09:30:00.000Z",
  };
}

/** Notifiers that record what they were asked to send. */
function recordingNotifiers(failSlack = false) {
  const slack: string[] = [];
  const email: EmailApprovalRequest[] = [];
  const failures: string[] = [];
  const notifiers: ApprovalNotifiers = {
    slack: {
      notifyApprovalRequested: async (approval) => {
        if (failSlack) throw new Error("channel_not_found");
        slack.push(approval.approvalId);
      },
    },
    email: {
      sendApprovalEmail: async (request) => {
        email.push(request);
        return {
          messageId: "m1",
          delivery: "ses",
          email: {
            to: request.to,
            from: "goal-loops@example.com",
            subject: "Approval needed",
            text: "",
            html: "",
            links: { approve: "https://api.example/a", reject: "https://api.example/r" },
          },
        };
      },
    },
    onFailure: (channel) => void failures.push(channel),
  };
  return { notifiers, slack, email, failures };
}

describe("notifyApprovalRequested", () => {
  it("sends Slack and email through their notifiers and only api/cli as plain outbox records", async () => {
    // Prepare
    const goal = aGoal({
      channels: ["slack", "email", "api"],
      slackChannel: "C123",
      email: "ops@example.com",
    });
    const approval = anApproval(goal.goalId);
    const outbox = new InMemoryOutbox();
    const sent = recordingNotifiers();

    // Act
    await notifyApprovalRequested(outbox, approval, goal, NOW, sent.notifiers);

    // Assess
    expect(sent.slack).toEqual([approval.approvalId]);
    expect(sent.email).toEqual([
      expect.objectContaining({ to: "ops@example.com", objective: goal.spec.objective }),
    ]);
    expect([...outbox.messages.values()].map((message) => message.channel)).toEqual(["api"]);
    expect(JSON.stringify([...outbox.messages.values()])).not.toContain(TASK_TOKEN);
  });

  it("falls back to the plain record when a channel fails or lacks its settings, and still sends the others", async () => {
    // Prepare: Slack refuses; email has no address
    const goal = aGoal({ channels: ["slack", "email"], slackChannel: "C123" });
    const approval = anApproval(goal.goalId);
    const outbox = new InMemoryOutbox();
    const sent = recordingNotifiers(true);

    // Act
    await notifyApprovalRequested(outbox, approval, goal, NOW, sent.notifiers);

    // Assess
    expect(sent.failures).toEqual(["slack"]);
    expect(sent.email).toEqual([]);
    expect([...outbox.messages.keys()].sort()).toEqual([
      `approval-${approval.approvalId}-email`,
      `approval-${approval.approvalId}-slack`,
    ]);
  });

  it("without notifiers puts one plain record per channel", async () => {
    // Prepare
    const goal = aGoal({ channels: ["slack", "cli"], slackChannel: "C123" });
    const outbox = new InMemoryOutbox();

    // Act
    await notifyApprovalRequested(outbox, anApproval(goal.goalId), goal, NOW);

    // Assess
    expect([...outbox.messages.values()].map((message) => message.channel).sort()).toEqual(["cli", "slack"]);
  });
});
