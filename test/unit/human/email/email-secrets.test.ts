import { describe, expect, it } from "vitest";
import { emailLinkSecretSource } from "../../../../lambdas/adapters/email-secrets";
import type { ReadSecret } from "../../../../lambdas/adapters/read-secret";
import { SlackSecretError, slackSecretsFromEnv } from "../../../../lambdas/adapters/slack-secrets";
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
