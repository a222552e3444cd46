import { describe, expect, it } from "vitest";
import {
  DEFAULT_SLACK_ROTATION_WINDOW_SECONDS,
  previousSlackSigningSecretSource,
  type ReadDatedSecretVersion,
} from "../../../../lambdas/adapters/secrets/slack-secrets";

const ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:slack-signing-AbCdEf";
const ROTATED = new Date("2026-12-01T10:00:00.000Z");

/** Secrets Manager as the function sees it: the versions by stage, and how often they were read. */
function versions(stages: Record<string, { value: string; createdAt: Date }>) {
  const reads: string[] = [];
  const read: ReadDatedSecretVersion = async (arn, stage) => {
    expect(arn).toBe(ARN);
    reads.push(stage);
    return Object.hasOwn(stages, stage) ? stages[stage] : undefined;
  };
  return { read, reads };
}

describe("previousSlackSigningSecretSource", () => {
  it("gives AWSPREVIOUS, accepted until the rotation window after AWSCURRENT was made", async () => {
    // Prepare
    const { read } = versions({
      AWSCURRENT: { value: "new-secret", createdAt: ROTATED },
      AWSPREVIOUS: { value: " old-secret\n", createdAt: new Date("2026-01-01T00:00:00Z") },
    });

    // Act
    const previous = await previousSlackSigningSecretSource({ SLACK_SIGNING_SECRET_ARN: ARN }, read)();
    const configured = await previousSlackSigningSecretSource(
      { SLACK_SIGNING_SECRET_ARN: ARN, SLACK_ROTATION_WINDOW_SECONDS: "600" },
      read,
    )();

    // Assess
    expect(previous).toEqual({
      secret: "old-secret",
      acceptedUntil: new Date(ROTATED.getTime() + DEFAULT_SLACK_ROTATION_WINDOW_SECONDS * 1000),
    });
    expect(configured?.acceptedUntil).toEqual(new Date(ROTATED.getTime() + 600_000));
  });

  it("gives none for a secret never rotated, and for the local runtime's inline secret, and caches the answer", async () => {
    // Prepare
    const { read, reads } = versions({ AWSCURRENT: { value: "only", createdAt: ROTATED } });
    const source = previousSlackSigningSecretSource({ SLACK_SIGNING_SECRET_ARN: ARN }, read, () => 0);

    // Act
    const answers = [await source(), await source()];
    const local = await previousSlackSigningSecretSource(
      { SLACK_SIGNING_SECRET: "inline", SLACK_SIGNING_SECRET_ARN: ARN },
      read,
    )();

    // Assess
    expect(answers).toEqual([undefined, undefined]);
    expect(reads).toEqual(["AWSCURRENT", "AWSPREVIOUS"]);
    expect(local).toBeUndefined();
  });
});
