import { describe, expect, it } from "vitest";
import {
  emailLinkSecretSource,
  previousEmailLinkSecretSource,
} from "../../../../lambdas/adapters/secrets/email-secrets";
import type { ReadSecret } from "../../../../lambdas/adapters/secrets/read-secret";
import { SlackSecretError, slackSecretsFromEnv } from "../../../../lambdas/adapters/secrets/slack-secrets";
import { ApprovalLinkSecretError } from "../../../../lambdas/core/human/email/approval-link";

const ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:link";

/** Answers every read with `value` and records what was asked. */
function recordingReader(value: unknown): { read: ReadSecret; calls: [string, { maxAge: number }][] } {
  const calls: [string, { maxAge: number }][] = [];
  return {
    calls,
    read: async (arn, options) => {
      calls.push([arn, { maxAge: options.maxAge }]);
      return value;
    },
  };
}

describe("secret sources", () => {
  it("reads the email link key through the given reader, with Powertools' 5-minute cache", async () => {
    // Prepare
    const reader = recordingReader("the-key");

    // Act
    const key = await emailLinkSecretSource({ EMAIL_LINK_SECRET_ARN: ARN }, reader.read)();

    // Assess
    expect(key).toBe("the-key");
    expect(reader.calls).toEqual([[ARN, { maxAge: 300 }]]);
  });

  it("prefers the inline key and refuses an empty secret or none configured, as before", async () => {
    // Prepare
    const reader = recordingReader("");

    // Act + Assess
    expect(
      await emailLinkSecretSource({ EMAIL_LINK_SECRET: "inline", EMAIL_LINK_SECRET_ARN: ARN }, reader.read)(),
    ).toBe("inline");
    expect(reader.calls).toEqual([]);
    await expect(emailLinkSecretSource({ EMAIL_LINK_SECRET_ARN: ARN }, reader.read)()).rejects.toThrow(
      new ApprovalLinkSecretError(`Secret ${ARN} has no string value`),
    );
    expect(() => emailLinkSecretSource({})).toThrow(ApprovalLinkSecretError);
  });

  it("reads the key before the last rotation (AWSPREVIOUS) at most every 5 minutes, a missing one too, deployed only", async () => {
    // Prepare
    const asked: [string, string][] = [];
    let clock = 0;
    const versions = [undefined, "the-old-key"];
    const previous = previousEmailLinkSecretSource(
      { EMAIL_LINK_SECRET_ARN: ARN },
      async (arn, stage) => {
        asked.push([arn, stage]);
        return versions.shift();
      },
      () => clock,
    );

    // Act
    const never = await previous();
    const cached = await previous();
    clock = 300_000;
    const rotated = await previous();
    const local = await previousEmailLinkSecretSource({ EMAIL_LINK_SECRET: "inline" }, async () => "x")();

    // Assess
    expect([never, cached, rotated, local]).toEqual([undefined, undefined, "the-old-key", undefined]);
    expect(asked).toEqual([
      [ARN, "AWSPREVIOUS"],
      [ARN, "AWSPREVIOUS"],
    ]);
  });

  it("reads the Slack bot token through the given reader, trimmed, and refuses a blank one", async () => {
    // Prepare
    const reader = recordingReader("  xoxb-token \n");

    // Act
    const token = await slackSecretsFromEnv({ SLACK_BOT_TOKEN_ARN: ARN }, reader.read).botToken();
    const blank = slackSecretsFromEnv({ SLACK_BOT_TOKEN_ARN: ARN }, recordingReader(" ").read).botToken();

    // Assess
    expect(token).toBe("xoxb-token");
    expect(reader.calls).toEqual([[ARN, { maxAge: 300 }]]);
    await expect(blank).rejects.toBeInstanceOf(SlackSecretError);
  });
});
