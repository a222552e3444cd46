import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signApprovalLink } from "../../lambdas/core/human/email/approval-link";
import type { LocalSecrets } from "../../lib/local/storage/local-secrets";
import { gatedNotifyGoal } from "./gated-notify-goal";
import { allEvents, type E2eStack, followGoal, startE2eStack } from "./local-stack-harness";

/**
 * The approvers of examples/goal-loops.approvals.config.json: Slack user U123ABC and
 * ops@example.com. The doors refuse everyone else.
 */
const SLACK_APPROVER = "U123ABC";
const EMAIL_APPROVER = "ops@example.com";

const SECRETS: LocalSecrets = {
  slackSigningSecret: "e2e-slack-signing-secret-0123456789abcdef",
  slackBotToken: "xoxb-e2e-bot-token",
  emailLinkSecret: "e2e-email-link-secret-0123456789abcdef0123456789",
};

interface OutboxItem {
  readonly messageId: string;
  readonly goalId: string;
  readonly channel: string;
  readonly message: unknown;
}

interface SlackButton {
  readonly action_id: string;
  readonly value: string;
}

interface Answer {
  readonly status: number;
  readonly text: string;
}

/** A goal whose model calls `notify` (irreversible, not pre-authorized): it waits for an approval on Slack and email. */
const gatedOnDoors = () =>
  gatedNotifyGoal({
    objective: "Tell ops that release 3.0 is out",
    fixture: "doors-notify",
    approval: { channels: ["slack", "email"], slackChannel: "C123", email: EMAIL_APPROVER },
  });

/** Slack's v0 signature as Slack documents it: `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{raw body}`. */
function slackSignature(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

function interactionBody(
  approvalId: string,
  actionId: "approve" | "reject",
  userId: string = SLACK_APPROVER,
): string {
  const payload = {
    type: "block_actions",
    user: { id: userId, username: "ana" },
    team: { id: "T1" },
    actions: [{ action_id: actionId, block_id: "approval", value: approvalId }],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

describe("the Slack and email doors end to end (local stack over HTTP)", () => {
  let e2e: E2eStack;
  /** Every answer, page and outbox message seen, for the task-token grep. */
  const seenTexts: string[] = [];
  /** Every task token the local runtime handed out while goals waited. */
  const seenTokens = new Set<string>();

  beforeAll(async () => {
    e2e = await startE2eStack({ secrets: SECRETS, e2eConfig: true });
    e2e.writeFixture("doors-notify", {
      reason: [
        {
          toolUse: { name: "notify", input: { channel: "ops", message: "release 3.0 is out" } },
        },
      ],
    });
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  function recordTokens(): void {
    for (const task of e2e.stack.executions.tokens.pending()) seenTokens.add(task.token);
  }

  async function request(
    method: "GET" | "POST",
    url: string,
    init: { body?: string; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const response = await fetch(url.startsWith("http") ? url : `${e2e.stack.apiUrl}${url}`, {
      method,
      ...(init.headers === undefined ? {} : { headers: init.headers }),
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    const text = await response.text();
    seenTexts.push(text);
    return { status: response.status, text };
  }

  async function outboxOf(goalId: string): Promise<OutboxItem[]> {
    const answer = await request("GET", "/_local/outbox");
    const { items } = JSON.parse(answer.text) as { items: OutboxItem[] };
    return items.filter((item) => item.goalId === goalId);
  }

  /** The goal parks before its messages go out: waits until the Slack message and the email are there. */
  async function notifiedOutbox(goalId: string): Promise<OutboxItem[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const items = await outboxOf(goalId);
      const channels = new Set(items.map((item) => item.channel));
      if ((channels.has("slack") && channels.has("email")) || Date.now() > deadline) return items;
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
    }
  }

  /** Follows a goal past its wait: `followGoal` stops at `waiting`, and a decision wakes it a moment later. */
  async function afterWaiting(goalId: string) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const followed = await followGoal(e2e.client, goalId);
      if (followed.final.status !== "waiting" || Date.now() > deadline) return followed;
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
    }
  }

  async function approvalStatus(approvalId: string): Promise<string> {
    const answer = await request("GET", "/approvals?status=pending");
    const { items } = JSON.parse(answer.text) as { items: { approvalId: string }[] };
    return items.some((item) => item.approvalId === approvalId) ? "pending" : "not pending";
  }

  async function waitingGoal() {
    const accepted = await e2e.client.submitGoal(gatedOnDoors());
    const { final } = await followGoal(e2e.client, accepted.goalId);
    recordTokens();
    seenTexts.push(JSON.stringify(final));
    const approvalId = final.waitingFor?.approvalId;
    if (final.status !== "waiting" || approvalId === undefined) {
      throw new Error(`expected a goal waiting for an approval, got ${final.status}`);
    }
    return { goalId: accepted.goalId, approvalId };
  }

  function signedPost(body: string, timestamp: string, signature?: string) {
    return request("POST", "/slack/interactions", {
      body,
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-slack-request-timestamp": timestamp,
        "x-slack-signature": signature ?? slackSignature(SECRETS.slackSigningSecret, timestamp, body),
      },
    });
  }

  it("posts Block Kit to Slack and emails signed links; Slack decides only on a fresh, correctly signed, unreplayed request", async () => {
    // Prepare
    const { goalId, approvalId } = await waitingGoal();
    const outbox = await notifiedOutbox(goalId);
    const body = interactionBody(approvalId, "approve");
    const now = String(Math.floor(Date.now() / 1000));
    const stale = String(Math.floor(Date.now() / 1000) - 10 * 60);

    // Act
    const wrong = await signedPost(body, now, slackSignature("not-the-signing-secret-at-all-000", now, body));
    const waitingAfterWrong = await e2e.client.getGoal(goalId);
    const old = await signedPost(body, stale);
    const waitingAfterStale = await e2e.client.getGoal(goalId);
    const signed = await signedPost(body, now);
    const { final } = await afterWaiting(goalId);
    const replayed = await signedPost(body, now);
    const afterReplay = await e2e.client.getGoal(goalId);

    // Assess: the outbox holds the Slack message and the email, as they would be sent
    const slack = outbox.find((item) => item.channel === "slack");
    const email = outbox.find((item) => item.channel === "email");
    expect(slack?.message).toMatchObject({ channel: "C123" });
    const blocks =
      ((slack?.message ?? {}) as { blocks?: { type: string; elements?: SlackButton[] }[] }).blocks ?? [];
    const buttons = (blocks.find((block) => block.type === "actions")?.elements ?? []).map((button) => ({
      action_id: button.action_id,
      value: button.value,
    }));
    expect(buttons).toEqual([
      { action_id: "approve", value: approvalId },
      { action_id: "reject", value: approvalId },
    ]);
    expect(email?.message).toMatchObject({ to: EMAIL_APPROVER });
    const emailText = JSON.stringify(email?.message);
    expect(emailText).toContain(`/email/approvals/${approvalId}?decision=approve`);
    expect(emailText).toContain(`/email/approvals/${approvalId}?decision=reject`);
    expect(outbox.filter((item) => item.channel === "slack" || item.channel === "email")).toHaveLength(2);
    // and the door
    expect(wrong.status).toBe(401);
    expect(waitingAfterWrong.status).toBe("waiting");
    expect(old.status).toBe(401);
    expect(waitingAfterStale.status).toBe("waiting");
    expect(signed.status).toBe(200);
    expect(signed.text).toContain("Approved");
    expect(final.status).toBe("completed");
    expect(replayed.status).toBe(401);
    expect(afterReplay).toMatchObject({ status: "completed", revision: final.revision });
    seenTexts.push(JSON.stringify(outbox), JSON.stringify(final));
  });

  it("emails links: GET confirms only; tampered, expired and reused links are refused; POST decides", async () => {
    // Prepare
    const { goalId, approvalId } = await waitingGoal();
    const outbox = await notifiedOutbox(goalId);
    const email = outbox.find((item) => item.channel === "email")?.message as { text?: string } | undefined;
    const approveLink = /https?:\/\/\S+decision=approve\S*/.exec(email?.text ?? "")?.[0];
    if (approveLink === undefined) throw new Error("no approve link in the email");
    const tamperedDecision = approveLink.replace("decision=approve", "decision=reject");
    const tamperedSig = approveLink.replace(/sig=([A-Za-z0-9_-])/, (_all, first: string) =>
      first === "A" ? "sig=B" : "sig=A",
    );
    const expiredLink = signApprovalLink({
      baseUrl: `${e2e.stack.apiUrl}/`,
      approvalId,
      decision: "approve",
      expiresAt: new Date(Date.now() - 60_000),
      approver: EMAIL_APPROVER,
      secret: SECRETS.emailLinkSecret,
    });
    // Correctly signed (as if the key leaked into a mail to someone else), but not an approver's.
    const strangersLink = signApprovalLink({
      baseUrl: `${e2e.stack.apiUrl}/`,
      approvalId,
      decision: "approve",
      expiresAt: new Date(Date.now() + 60 * 60_000),
      approver: "mallory@example.com",
      secret: SECRETS.emailLinkSecret,
    });
    const withoutApprover = approveLink.replace(/&approver=[^&]*/, "");

    // Act
    const confirmation = await request("GET", approveLink);
    const statusAfterGet = await approvalStatus(approvalId);
    const changedDecision = await request("POST", tamperedDecision);
    const changedSig = await request("POST", tamperedSig);
    const expired = await request("POST", expiredLink);
    const stranger = await request("POST", strangersLink);
    const unbound = await request("POST", withoutApprover);
    const statusAfterRefusals = await approvalStatus(approvalId);
    const decided = await request("POST", approveLink);
    const { final } = await afterWaiting(goalId);
    const reused = await request("POST", approveLink);

    // Assess
    expect(confirmation.status).toBe(200);
    expect(confirmation.text).toContain("<form");
    expect(statusAfterGet).toBe("pending");
    expect(changedDecision.status).toBe(403);
    expect(changedSig.status).toBe(403);
    expect(expired.status).toBe(410);
    expect(stranger.status).toBe(403);
    expect(stranger.text).toContain("approvals.email.approvers");
    expect(unbound.status).toBe(400);
    expect(statusAfterRefusals).toBe("pending");
    expect(decided.status).toBe(200);
    expect(decided.text).toContain(`email:${EMAIL_APPROVER}`);
    expect(final.status).toBe("completed");
    expect(reused.status).toBe(409);
    seenTexts.push(JSON.stringify(outbox), JSON.stringify(final));
  });

  it("refuses (403) a click from a Slack user not on the approver list and changes nothing: approval pending, no event, no decision", async () => {
    // Prepare
    const { goalId, approvalId } = await waitingGoal();
    await notifiedOutbox(goalId);
    const before = await allEvents(e2e.client, goalId);
    const body = interactionBody(approvalId, "approve", "U0STRANGER");
    const now = String(Math.floor(Date.now() / 1000));

    // Act
    const refused = await signedPost(body, now);
    const pending = (await e2e.client.listApprovals("pending")).find((a) => a.approvalId === approvalId);
    const goalAfter = await e2e.client.getGoal(goalId);
    const after = await allEvents(e2e.client, goalId);
    // and then the approver's own click still decides
    const decided = await signedPost(interactionBody(approvalId, "approve"), now);
    const { final } = await afterWaiting(goalId);

    // Assess
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("U0STRANGER");
    expect(refused.text).toContain("approvals.slack.approverUserIds");
    expect(pending).toMatchObject({ approvalId, status: "pending" });
    expect(pending?.decision).toBeUndefined();
    expect(goalAfter).toMatchObject({ status: "waiting", waitingFor: { approvalId } });
    expect(after).toEqual(before);
    expect(decided.status).toBe(200);
    expect(decided.text).toContain("Approved");
    expect(final.status).toBe("completed");
    seenTexts.push(JSON.stringify(goalAfter), JSON.stringify(final));
  });

  it("never shows a task token in an outbox message, page or API answer", async () => {
    // Act
    const everything = [...seenTexts, JSON.stringify(await e2e.stack.readOutbox())].join("\n");

    // Assess
    expect(seenTokens.size).toBeGreaterThanOrEqual(3);
    for (const token of seenTokens) expect(everything).not.toContain(token);
    expect(everything).not.toContain(SECRETS.slackBotToken);
    expect(everything).not.toContain(SECRETS.emailLinkSecret);
  });
});
