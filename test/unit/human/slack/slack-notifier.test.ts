import { WebClient } from "@slack/web-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  SlackApprovalNotifier,
  SlackNotifyError,
  slackApprovalMessageId,
} from "../../../../lambdas/adapters/slack/slack-notifier";
import {
  aPendingApproval,
  aSpec,
  createGoal,
  SECRET_TOKEN,
  type SlackTable,
  startSlackTable,
} from "./support";

describe("SlackApprovalNotifier", () => {
  let table: SlackTable;

  beforeAll(async () => {
    table = await startSlackTable();
  });
  afterAll(() => table.stop());

  it("puts the message into the outbox locally, as chat.postMessage would send it, once per approval", async () => {
    // Prepare
    const goal = await createGoal(
      table,
      undefined,
      aSpec({ approval: { channels: ["slack"], slackChannel: "C0OPS" } }),
    );
    const approval = aPendingApproval(goal.goalId, goal.tenantId);
    const notifier = new SlackApprovalNotifier({
      delivery: { kind: "outbox", outbox: table.adapters.outbox },
    });

    // Act: a retried request sends it again
    const receipt = await notifier.notifyApprovalRequested(approval, goal);
    await notifier.notifyApprovalRequested(approval, goal);

    // Assess
    expect(receipt).toEqual({
      delivery: "outbox",
      channel: "C0OPS",
      messageId: slackApprovalMessageId(approval.approvalId),
    });
    const messages = await table.adapters.outbox.listMessages(goal.goalId);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.channel).toBe("slack");
    const sent: unknown = JSON.parse(messages[0]?.message ?? "{}");
    expect(sent).toMatchObject({ channel: "C0OPS", text: expect.stringContaining("Approval needed") });
    expect(JSON.stringify(sent)).toContain(`"value":"${approval.approvalId}"`);
    expect(JSON.stringify(messages)).not.toContain(SECRET_TOKEN);
  });

  it("posts with chat.postMessage and the bot token, to the default channel when the goal names none", async () => {
    // Prepare: a WebClient whose fetch records the request instead of reaching Slack
    const goal = await createGoal(table);
    const approval = aPendingApproval(goal.goalId, goal.tenantId);
    const requests: { url: string; body: string; auth: string | null }[] = [];
    const client = new WebClient(undefined, {
      retryConfig: { retries: 0 },
      fetch: async (input, init) => {
        const headers = new Headers(init?.headers);
        requests.push({ url: String(input), body: String(init?.body), auth: headers.get("authorization") });
        return new Response(JSON.stringify({ ok: true, channel: "C0DEF", ts: "1772357400.000100" }), {
          headers: { "content-type": "application/json" },
        });
      },
    });
    const notifier = new SlackApprovalNotifier({
      delivery: { kind: "slack", client, botToken: async () => "xoxb-test-token" },
      defaultChannel: "C0DEF",
    });

    // Act
    const receipt = await notifier.notifyApprovalRequested(approval, goal);

    // Assess
    expect(receipt).toEqual({ delivery: "slack", channel: "C0DEF", ts: "1772357400.000100" });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.url).toContain("chat.postMessage");
    const sent = `${requests[0]?.body} ${requests[0]?.auth}`;
    expect(sent).toContain("xoxb-test-token");
    expect(decodeURIComponent(requests[0]?.body ?? "")).toContain(approval.approvalId);
    expect(sent).not.toContain(SECRET_TOKEN);
  });

  it("refuses to post when neither the goal nor the deployment names a channel", async () => {
    // Prepare
    const goal = await createGoal(table);
    const notifier = new SlackApprovalNotifier({
      delivery: { kind: "outbox", outbox: table.adapters.outbox },
    });

    // Act
    const error = await notifier
      .notifyApprovalRequested(aPendingApproval(goal.goalId, goal.tenantId), goal)
      .catch((caught: unknown) => caught);

    // Assess
    expect(error).toBeInstanceOf(SlackNotifyError);
    expect(await table.adapters.outbox.listMessages(goal.goalId)).toEqual([]);
  });
});
