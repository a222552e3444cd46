import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { notifySenderFromEnv } from "../../../lambdas/adapters/notify/notify-senders";
import type { NotifySender, NotifySendRequest } from "../../../lambdas/tools/built-in-tool";
import {
  FAILING_SLACK_CHANNEL,
  FAILING_WEBHOOK_PATH,
  REJECTED_EMAIL,
  type RecordingFake,
  slackArguments,
  startSesFake,
  startSlackFake,
  startWebhookFake,
} from "../../support/notify-fakes";

const BOT_TOKEN = "xoxb-test-token";

function aRequest(destination: NotifySendRequest["destination"]): NotifySendRequest {
  return {
    destination,
    channel: "ops",
    message: "release 2.1 is out",
    goalId: "g-1",
    idempotencyKey: "key-1",
  };
}

/** The real Slack WebClient and SES v2 client, pointed at local fakes the way the local stack points them. */
describe("notifySenderFromEnv against recording fakes", () => {
  let slack: RecordingFake;
  let ses: RecordingFake;
  let webhook: RecordingFake;
  let send: NotifySender;

  beforeAll(async () => {
    [slack, ses, webhook] = await Promise.all([startSlackFake(), startSesFake(), startWebhookFake()]);
    // The SDK reads its endpoint and credentials from the process environment, as in a function.
    vi.stubEnv("AWS_ENDPOINT_URL_SESV2", ses.origin);
    vi.stubEnv("AWS_ACCESS_KEY_ID", "local");
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", "local");
    send = notifySenderFromEnv({
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_API_URL: `${slack.origin}/api/`,
      NOTIFY_EMAIL_FROM: "goal-loops@example.com",
      AWS_REGION: "us-east-1",
    });
  });

  afterAll(async () => {
    vi.unstubAllEnvs();
    await Promise.all([slack?.close(), ses?.close(), webhook?.close()]);
  });

  it("Slack: one chat.postMessage with the bot token, the channel and the message", async () => {
    // Act
    const { receipt } = await send(aRequest({ type: "slack", channel: "C0123ABCD" }));

    // Assess
    expect(receipt).toMatch(/^1700000000\.\d{6}$/);
    const posts = slack.requests.filter((request) => slackArguments(request).channel === "C0123ABCD");
    expect(posts).toHaveLength(1);
    expect(posts[0]?.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    const [post] = posts;
    if (post === undefined) throw new Error("no chat.postMessage reached the fake");
    expect(slackArguments(post)).toMatchObject({
      channel: "C0123ABCD",
      text: "release 2.1 is out",
    });
  });

  it("Slack ok:false: one request, an error naming Slack's answer", async () => {
    // Act
    const sending = send(aRequest({ type: "slack", channel: FAILING_SLACK_CHANNEL }));

    // Assess
    await expect(sending).rejects.toMatchObject({ name: "NotifySendError" });
    await expect(sending).rejects.toThrow(/channel_not_found/);
    const posts = slack.requests.filter(
      (request) => slackArguments(request).channel === FAILING_SLACK_CHANNEL,
    );
    expect(posts).toHaveLength(1);
  });

  it("SES: one SendEmail from the sender to the recipients, the message in the text body", async () => {
    // Act
    const { receipt } = await send(aRequest({ type: "email", to: ["ops@example.com"], subject: "Release" }));

    // Assess
    expect(receipt).toMatch(/^ses-message-\d+$/);
    const mails = ses.requests.map((request) => JSON.parse(request.body));
    expect(mails.filter((mail) => mail.Destination.ToAddresses.includes("ops@example.com"))).toEqual([
      expect.objectContaining({
        FromEmailAddress: "goal-loops@example.com",
        Destination: { ToAddresses: ["ops@example.com"] },
        Content: {
          Simple: expect.objectContaining({
            Subject: { Data: "Release", Charset: "UTF-8" },
            Body: { Text: { Data: expect.stringContaining("release 2.1 is out"), Charset: "UTF-8" } },
          }),
        },
      }),
    ]);
  });

  it("SES error: one request (no SDK retry), an error naming SES's error", async () => {
    // Act
    const sending = send(aRequest({ type: "email", to: [REJECTED_EMAIL], subject: "Release" }));

    // Assess
    await expect(sending).rejects.toThrow(/SES SendEmail to rejected@example.com: MessageRejected/);
    const rejected = ses.requests.filter((request) => request.body.includes(REJECTED_EMAIL));
    expect(rejected).toHaveLength(1);
  });

  it("webhook: one JSON POST carrying the Idempotency-Key", async () => {
    // Act
    const { receipt } = await send(aRequest({ type: "webhook", url: `${webhook.origin}/in` }));

    // Assess
    expect(receipt).toBe("HTTP 200");
    const posts = webhook.requests.filter((request) => request.path === "/in");
    expect(posts).toHaveLength(1);
    expect(posts[0]?.method).toBe("POST");
    expect(posts[0]?.headers["idempotency-key"]).toBe("key-1");
    expect(JSON.parse(posts[0]?.body ?? "")).toEqual({
      channel: "ops",
      message: "release 2.1 is out",
      goalId: "g-1",
      idempotencyKey: "key-1",
    });
  });

  it("webhook 500: an error naming the host and the status", async () => {
    // Act
    const sending = send(aRequest({ type: "webhook", url: `${webhook.origin}${FAILING_WEBHOOK_PATH}` }));

    // Assess
    await expect(sending).rejects.toThrow(
      `webhook POST to ${new URL(webhook.origin).host} answered HTTP 500`,
    );
    expect(webhook.requests.filter((request) => request.path === FAILING_WEBHOOK_PATH)).toHaveLength(1);
  });

  it("e-mail without a sender identity is refused without calling SES", async () => {
    // Prepare
    const before = ses.requests.length;
    const noSender = notifySenderFromEnv({ SLACK_BOT_TOKEN: BOT_TOKEN, AWS_REGION: "us-east-1" });

    // Act + Assess
    await expect(
      noSender(aRequest({ type: "email", to: ["ops@example.com"], subject: "x" })),
    ).rejects.toThrow(/no SES sender identity/);
    expect(ses.requests).toHaveLength(before);
  });
});
