import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAULT_INJECTION_ENV } from "../../lambdas/adapters/shared/fault-injection";
import type { GoalSnapshot } from "../../lambdas/core/goal/goal-record";
import {
  FAILING_WEBHOOK_PATH,
  type RecordingFake,
  slackArguments,
  startSesFake,
  startSlackFake,
  startWebhookFake,
} from "../support/notify-fakes";
import { allEvents, E2E_WEBHOOK_PORT, type E2eStack, followGoal, startE2eStack } from "./local-stack-harness";

const SLACK_CHANNEL = "C0E2E0001";
const RECIPIENT = "release@example.com";
const MESSAGES = {
  ops: "release 2.2 is out (to Slack)",
  release: "release 2.2 is out (by e-mail)",
  pager: "release 2.2 is out (to the webhook)",
  broken: "release 2.2 is out (to a webhook that is down)",
};

function notifyTurn(channel: keyof typeof MESSAGES) {
  return { toolUse: { name: "notify", input: { channel, message: MESSAGES[channel] } } };
}

const WRITE_DONE = {
  toolUse: { name: "workspace_write", input: { path: "done.md", content: "release 2.2: everyone told" } },
};

/** Three notify calls (one per channel), then the note the success check wants. */
const THREE_CHANNELS = {
  reason: [notifyTurn("ops"), notifyTurn("release"), notifyTurn("pager"), WRITE_DONE, { text: "Done." }],
};
/** A notify to a webhook that answers 500, then the note: the goal goes on after the tool error. */
const BROKEN_WEBHOOK = { reason: [notifyTurn("broken"), WRITE_DONE, { text: "Done." }] };

function notifyGoal(model: string) {
  return {
    objective: "Tell everyone that release 2.2 is out",
    successChecks: [
      {
        id: "recorded",
        description: "done.md records that everyone was told",
        verify: { kind: "artifact", path: "done.md", contains: "everyone told" },
      },
    ],
    tools: ["notify", "workspace_write"],
    limits: { maxSteps: 20, maxNoProgressCycles: 10 },
    pattern: "react",
    models: { default: `scripted:${model}` },
  };
}

/**
 * `notify` really sending from the local stack: the acting functions' real Slack WebClient and SES
 * v2 client, pointed at local fakes that record requests, and a webhook on 127.0.0.1 the
 * configuration names. Every send crashes its step right after the receipt was recorded
 * (crash-after-notify-sent): the retried Act must answer from the ledger and send nothing more.
 */
describe("notify delivers to Slack, SES and a webhook, once per call", () => {
  let e2e: E2eStack;
  let slack: RecordingFake;
  let ses: RecordingFake;
  let webhook: RecordingFake;

  beforeAll(async () => {
    // The webhook receiver listens where the shared e2e configuration's notify.channels point.
    [slack, ses, webhook] = await Promise.all([
      startSlackFake(),
      startSesFake(),
      startWebhookFake(E2E_WEBHOOK_PORT),
    ]);
    e2e = await startE2eStack({
      e2eConfig: true,
      notifyEndpoints: { slackApiUrl: `${slack.origin}/api/`, sesv2: ses.origin },
      environment: { [FAULT_INJECTION_ENV]: "crash-after-notify-sent" },
    });
    e2e.writeFixture("notify-three-channels", THREE_CHANNELS);
    e2e.writeFixture("notify-broken-webhook", BROKEN_WEBHOOK);
  });

  afterAll(async () => {
    await e2e?.stop();
    await Promise.all([slack?.close(), ses?.close(), webhook?.close()]);
  });

  async function approve(approvalId: string): Promise<void> {
    const response = await fetch(`${e2e.stack.apiUrl}/approvals/${approvalId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ decision: "approve" }),
    });
    expect(response.status).toBe(200);
  }

  /** Follows the goal, approving each approval it waits on, until it settles otherwise. */
  async function approveUntilSettled(goalId: string): Promise<{ final: GoalSnapshot; approvals: number }> {
    let approvals = 0;
    for (;;) {
      const { final } = await followGoal(e2e.client, goalId);
      const approvalId = final.status === "waiting" ? final.waitingFor?.approvalId : undefined;
      if (approvalId === undefined) return { final, approvals };
      await approve(approvalId);
      approvals += 1;
      // The resume handler wakes the goal through EventBridge: wait until it left this wait.
      await e2e.stack.events.idle();
      const deadline = Date.now() + 30_000;
      while ((await e2e.client.getGoal(goalId)).waitingFor?.approvalId === approvalId) {
        if (Date.now() > deadline) throw new Error(`goal ${goalId} still waits on ${approvalId}`);
        await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
      }
    }
  }

  it("approved, each channel's fake gets exactly one request with the message, though every sending step crashed and was retried", async () => {
    // Act
    const accepted = await e2e.client.submitGoal(notifyGoal("notify-three-channels"));
    const { final, approvals } = await approveUntilSettled(accepted.goalId);

    // Assess: completed, after one approval per notify
    expect(final.status).toBe("completed");
    expect(approvals).toBe(3);

    // Assess: Slack got one chat.postMessage, with the bot token, to the configured channel
    const posts = slack.requests.filter((request) => request.path === "/api/chat.postMessage");
    expect(posts.map(slackArguments)).toEqual([
      expect.objectContaining({ channel: SLACK_CHANNEL, text: MESSAGES.ops }),
    ]);
    expect(String(posts[0]?.headers.authorization)).toMatch(/^Bearer xoxb-/);

    // Assess: SES got one SendEmail to the configured recipient
    const mails = ses.requests.map((request) => JSON.parse(request.body));
    expect(mails).toEqual([
      expect.objectContaining({
        FromEmailAddress: "goal-loops@example.com",
        Destination: { ToAddresses: [RECIPIENT] },
      }),
    ]);
    expect(mails[0].Content.Simple.Body.Text.Data).toContain(MESSAGES.release);

    // Assess: the webhook got one POST with the message and the call's Idempotency-Key
    const hooks = webhook.requests.filter((request) => request.path === "/hook");
    expect(hooks).toHaveLength(1);
    const body = JSON.parse(hooks[0]?.body ?? "{}");
    expect(body).toMatchObject({ channel: "pager", message: MESSAGES.pager, goalId: accepted.goalId });
    expect(hooks[0]?.headers["idempotency-key"]).toBe(body.idempotencyKey);

    // Assess: each send crashed its step once, and the retries answered from the ledger
    const crashes = e2e.logLines.filter((line) =>
      line.includes(`${FAULT_INJECTION_ENV}: crashing after notify`),
    );
    expect(crashes).toHaveLength(3);
    const events = await allEvents(e2e.client, accepted.goalId);
    const notified = events.filter((event) => event.type === "tool.called" && event.name === "notify");
    expect(notified.map((event) => event.status)).toEqual(["success", "success", "success"]);
    // Assess: the outbox holds the ledger (besides the approval requests): three notify messages
    const ledger = (await e2e.stack.readOutbox()).filter(
      (entry) => entry.goalId === accepted.goalId && entry.messageId.startsWith("notify-"),
    );
    expect(ledger.map((entry) => entry.channel).sort()).toEqual(["ops", "pager", "release"]);
  }, 240_000);

  it("a webhook answering 500 is a NotifyDeliveryFailed tool error naming the channel, and the goal goes on", async () => {
    // Act
    const accepted = await e2e.client.submitGoal(notifyGoal("notify-broken-webhook"));
    const { final } = await approveUntilSettled(accepted.goalId);

    // Assess
    expect(final.status).toBe("completed");
    expect(webhook.requests.filter((request) => request.path === FAILING_WEBHOOK_PATH)).toHaveLength(1);
    const events = await allEvents(e2e.client, accepted.goalId);
    expect(events.filter((event) => event.type === "tool.error")).toEqual([
      expect.objectContaining({ name: "notify", errorName: "NotifyDeliveryFailed" }),
    ]);
    const next = e2e.stack.bedrock
      .calls()
      .find((call) => call.goalId === accepted.goalId && call.role === "reason" && call.call === 1);
    expect(JSON.stringify(next?.request)).toContain(
      "NotifyDeliveryFailed: notify to channel 'broken' (webhook http://127.0.0.1:",
    );
    expect(JSON.stringify(next?.request)).toContain("answered HTTP 500");
  }, 240_000);
});
