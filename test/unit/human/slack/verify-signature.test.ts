import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoDbReplayGuard } from "../../../../lambdas/adapters/dynamodb/slack-replay-guard";
import { refuseReplay } from "../../../../lambdas/core/human/slack/replay-guard";
import {
  SlackSignatureError,
  slackSignature,
  verifySlackRequest,
} from "../../../../lambdas/core/human/slack/verify-signature";
import { SLACK_DOC_EXAMPLE, type SlackTable, signAsSlack, startSlackTable } from "./support";

const DOC_NOW = new Date((Number(SLACK_DOC_EXAMPLE.timestamp) + 60) * 1000);

function refusal(run: () => void): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof SlackSignatureError) return error.reason;
    throw error;
  }
}

describe("verifySlackRequest", () => {
  it("computes Slack's documented signature for Slack's documented request", () => {
    // Act
    const signature = slackSignature(
      SLACK_DOC_EXAMPLE.signingSecret,
      SLACK_DOC_EXAMPLE.timestamp,
      SLACK_DOC_EXAMPLE.body,
    );

    // Assess
    expect(signature).toBe(SLACK_DOC_EXAMPLE.signature);
  });

  it("accepts Slack's documented request within five minutes of its timestamp", () => {
    // Prepare
    const request = { ...SLACK_DOC_EXAMPLE, rawBody: SLACK_DOC_EXAMPLE.body, now: DOC_NOW };

    // Act
    const reason = refusal(() => verifySlackRequest(request));

    // Assess
    expect(reason).toBeUndefined();
  });

  it.each([
    ["a wrong signature", { signature: `${SLACK_DOC_EXAMPLE.signature.slice(0, -1)}0` }, "bad signature"],
    ["a signature of another length", { signature: "v0=abc" }, "bad signature"],
    ["another secret", { signingSecret: "not-the-secret" }, "bad signature"],
    ["a body changed after signing", { rawBody: `${SLACK_DOC_EXAMPLE.body}&text=approve` }, "bad signature"],
    ["no signature header", { signature: undefined }, "missing headers"],
    ["no timestamp header", { timestamp: undefined }, "missing headers"],
    ["a timestamp that is not a number", { timestamp: "soon" }, "stale timestamp"],
    [
      "a timestamp five minutes and one second old",
      { now: new Date((1531420618 + 301) * 1000) },
      "stale timestamp",
    ],
    [
      "a timestamp five minutes and one second ahead",
      { now: new Date((1531420618 - 301) * 1000) },
      "stale timestamp",
    ],
  ])("refuses %s", (_name, change, expected) => {
    // Prepare
    const request = { ...SLACK_DOC_EXAMPLE, rawBody: SLACK_DOC_EXAMPLE.body, now: DOC_NOW, ...change };

    // Act
    const reason = refusal(() => verifySlackRequest(request));

    // Assess
    expect(reason).toBe(expected);
  });

  it("accepts a timestamp exactly five minutes old", () => {
    // Prepare: re-signed by hand, so only the clock differs from the documented example
    const timestamp = "1700000000";
    const request = {
      signingSecret: "s3cret",
      timestamp,
      signature: signAsSlack("s3cret", timestamp, "payload=%7B%7D"),
      rawBody: "payload=%7B%7D",
      now: new Date((1700000000 + 300) * 1000),
    };

    // Act
    const reason = refusal(() => verifySlackRequest(request));

    // Assess
    expect(reason).toBeUndefined();
  });
});

describe("DynamoDbReplayGuard", () => {
  let table: SlackTable;

  beforeAll(async () => {
    table = await startSlackTable();
  });
  afterAll(() => table.stop());

  it("lets a signature through once and refuses it the second time, from another guard instance too", async () => {
    // Prepare: two guards stand for two Lambda instances sharing the table
    const first = new DynamoDbReplayGuard(table.client, table.tableName);
    const second = new DynamoDbReplayGuard(table.client, table.tableName);
    const signature = signAsSlack("s3cret", "1700000000", "payload=%7B%7D");

    // Act
    const once = await refuseReplay(first, signature, "1700000000").then(() => "accepted");
    const again = await refuseReplay(second, signature, "1700000000").catch((error: unknown) =>
      error instanceof SlackSignatureError ? error.reason : "other",
    );

    // Assess
    expect(once).toBe("accepted");
    expect(again).toBe("replayed");
  });

  it("lets exactly one of ten concurrent deliveries of one signature through", async () => {
    // Prepare
    const guard = new DynamoDbReplayGuard(table.client, table.tableName);
    const signature = signAsSlack("s3cret", "1700000001", "payload=%7B%7D");
    const expiresAt = new Date((1700000001 + 360) * 1000);

    // Act
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => guard.firstSeen(signature, expiresAt)),
    );

    // Assess
    expect(answers.filter(Boolean)).toHaveLength(1);
  });

  it("stores the signature with a TTL past the end of Slack's window", async () => {
    // Prepare
    const guard = new DynamoDbReplayGuard(table.client, table.tableName);
    const signature = signAsSlack("s3cret", "1700000002", "payload=%7B%7D");

    // Act
    await refuseReplay(guard, signature, "1700000002");

    // Assess
    const { GetCommand } = await import("@aws-sdk/lib-dynamodb");
    const { Item } = await table.client.send(
      new GetCommand({ TableName: table.tableName, Key: { pk: `SLACK#${signature}`, sk: "SLACK_REQUEST" } }),
    );
    expect(Item?.ttl).toBeGreaterThan(1700000002 + 300);
  });
});

describe("verifySlackRequest with a previous signing secret", () => {
  const body = "payload=%7B%7D";
  const timestamp = String(Math.floor(DOC_NOW.getTime() / 1000));
  const request = (secret: string, acceptedUntil: Date) => ({
    signingSecret: "current-secret",
    previousSigningSecret: { secret: "previous-secret", acceptedUntil },
    timestamp,
    signature: slackSignature(secret, timestamp, body),
    rawBody: body,
    now: DOC_NOW,
  });

  it("accepts the previous secret's signature until the window closes, and never after", () => {
    // Act
    const inside = refusal(() => verifySlackRequest(request("previous-secret", DOC_NOW)));
    const outside = refusal(() =>
      verifySlackRequest(request("previous-secret", new Date(DOC_NOW.getTime() - 1000))),
    );
    const current = refusal(() =>
      verifySlackRequest(request("current-secret", new Date(DOC_NOW.getTime() - 1000))),
    );
    const neither = refusal(() => verifySlackRequest(request("some-other-secret", DOC_NOW)));

    // Assess
    expect([inside, outside, current, neither]).toEqual([
      undefined,
      "bad signature",
      undefined,
      "bad signature",
    ]);
  });
});
