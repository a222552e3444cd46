import { describe, expect, it } from "vitest";
import { recordCycle } from "../../../lambdas/core/goal/evidence/record-cycle";
import { GoalSnapshotSchema } from "../../../lambdas/core/goal/goal-record";
import { toSnapshot } from "../../../lambdas/core/goal/snapshot";
import { recordModelUsage } from "../../../lambdas/core/models/model-prices";
import { artifact, buildGoal, frozen, minutesLater, NOW } from "./support";

describe("toSnapshot", () => {
  it("derives satisfied and unsatisfied checks, the last evidence and the public usage", () => {
    // Prepare
    const used = frozen(
      recordModelUsage(
        buildGoal(),
        "reason",
        {
          modelId: "us.anthropic.claude-haiku-4-5-20251001-v1:0",
          usage: { inputTokens: 1_000, outputTokens: 100, cacheReadTokens: 50, cacheWriteTokens: 70 },
          content: [
            { reasoningContent: { reasoningText: { text: "List first, then write.", signature: "sig" } } },
          ],
        },
        NOW,
      ),
    );
    const cycled = frozen(
      recordCycle(
        used,
        { artifacts: [artifact("out/report.md", "## Summary")] },
        { now: minutesLater(1), iteration: 0 },
      ),
    );
    const record = { ...cycled, lastEventSeq: 9 };

    // Act
    const snapshot = toSnapshot(record);

    // Assess
    expect(GoalSnapshotSchema.parse(snapshot)).toEqual(snapshot);
    expect(snapshot).toMatchObject({
      goalId: "goal-1",
      status: "running",
      objective: "Write a release report",
      lastEventId: 9,
      satisfiedChecks: ["report"],
      unsatisfiedChecks: ["tests-pass"],
      steps: 1,
    });
    expect(snapshot.lastEvidence).toMatchObject({ checkId: "report", kind: "artifact" });
    expect(snapshot.usage).toEqual({
      inputTokens: 1_000,
      outputTokens: 100,
      cacheReadTokens: 50,
      modelCalls: 1,
      costUsd: record.usage.costUsd,
    });
    expect("cacheWriteTokens" in snapshot.usage).toBe(false);
    // Cost per role: only the roles that made calls.
    expect(snapshot.usageByRole).toEqual({ reason: snapshot.usage });
    // What the role's latest call reasoned: the summary text, never the signature.
    expect(snapshot.reasoningByRole).toEqual({
      reason: {
        summary: "List first, then write.",
        modelId: "us.anthropic.claude-haiku-4-5-20251001-v1:0",
        at: NOW.toISOString(),
      },
    });
    expect(JSON.stringify(snapshot)).not.toContain('"sig"');
  });

  it("has no evidence before the first cycle", () => {
    // Act
    const snapshot = toSnapshot(buildGoal());

    // Assess
    expect(snapshot.lastEvidence).toBeNull();
    expect(snapshot.reasoningByRole).toEqual({});
    expect(snapshot.satisfiedChecks).toEqual([]);
    expect(snapshot.unsatisfiedChecks).toEqual(["report", "tests-pass"]);
  });
});
