import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GoalSnapshot } from "../../lambdas/core/goal/goal-record";
import { type BedrockEndpoint, startBedrockEndpoint } from "../../lib/local/bedrock/bedrock-endpoint";
import { parseModelFixture } from "../../lib/local/bedrock/model-fixtures";
import { followGoal, PROJECT_DIR } from "./local-stack-harness";
import { startLocalStackProcess, writeFixtures } from "./local-stack-process";

const CREDENTIALS = {
  AWS_ACCESS_KEY_ID: "AKIDRECORDERTEST0001",
  AWS_SECRET_ACCESS_KEY: "recorder-test-secret-key",
};

const exampleGoal = (model: string) => ({
  ...JSON.parse(readFileSync(join(PROJECT_DIR, "examples", "goals", "write-release-summary.json"), "utf8")),
  models: { default: model },
});

/** What a recording must reproduce: the outcome, the checks, the evidence's hashes and the usage. */
function outcomeOf(snapshot: GoalSnapshot) {
  const { at: _at, runId: _runId, ...evidence } = snapshot.lastEvidence ?? { at: "", runId: "" };
  return {
    status: snapshot.status,
    satisfiedChecks: snapshot.satisfiedChecks,
    unsatisfiedChecks: snapshot.unsatisfiedChecks,
    progress: snapshot.progress,
    evidence,
    usage: snapshot.usage,
    usageByRole: snapshot.usageByRole,
  };
}

describe("npm start -- --record <name>, then scripted:<name> offline", () => {
  let upstream: BedrockEndpoint;
  const folders: string[] = [];
  const folder = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    folders.push(dir);
    return dir;
  };

  beforeAll(async () => {
    // The stand-in for real Bedrock: the strict local endpoint itself (HTTP/2, its own signatures),
    // answering a model that is throttled once before its second answer.
    const upstreamFixtures = folder("goal-loops-upstream-");
    const example = JSON.parse(
      readFileSync(join(PROJECT_DIR, "examples", "fixtures", "write-release-summary.json"), "utf8"),
    );
    const [first, second] = example.reason;
    cpSync(join(PROJECT_DIR, "examples", "fixtures"), upstreamFixtures, { recursive: true });
    writeFileSync(
      join(upstreamFixtures, "real-model.json"),
      JSON.stringify({
        reason: [first, { error: "ThrottlingException", message: "Too many requests" }, second],
      }),
    );
    upstream = await startBedrockEndpoint({ fixturesDir: upstreamFixtures });
  });

  afterAll(async () => {
    await upstream?.close();
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  });

  it("records a run's answers, errors and signed reasoning, and the replay reaches the same final snapshot", async () => {
    // Prepare
    const recordingDir = folder("goal-loops-recording-");
    writeFixtures(recordingDir, {});
    const recording = await startLocalStackProcess(recordingDir, {
      args: ["--in-memory", "--record", "release-run"],
      env: { AWS_ENDPOINT_URL_BEDROCK_RUNTIME: upstream.url, AWS_REGION: "eu-west-1", ...CREDENTIALS },
    });

    // Act: record
    let recorded: GoalSnapshot;
    try {
      const accepted = await recording.client.submitGoal(exampleGoal("scripted:real-model"));
      recorded = (await followGoal(recording.client, accepted.goalId, { deadlineMs: 120_000 })).final;
    } finally {
      await recording.stop();
    }

    // Assess the recording
    expect(recorded.status).toBe("completed");
    expect(recording.output()).toContain(
      `Recording       every model call goes to Bedrock Runtime at ${upstream.url}`,
    );
    const file = join(recordingDir, "fixtures", "release-run.json");
    const text = readFileSync(file, "utf8");
    for (const secret of Object.values(CREDENTIALS)) expect(text).not.toContain(secret);
    const fixture = parseModelFixture(file, text);
    expect(fixture.recordedFrom).toMatchObject({ model: "scripted:real-model", upstream: upstream.url });
    const calls = fixture.roles.reason ?? [];
    expect(calls).toHaveLength(2);
    expect(calls[1]?.errors).toEqual([{ error: "ThrottlingException", message: "Too many requests" }]);
    const upstreamAnswers = upstream
      .calls()
      .flatMap((call) => (call.response === undefined ? [] : [call.response]));
    expect(upstreamAnswers).toHaveLength(2);
    for (const [index, call] of calls.entries()) {
      const answer = upstreamAnswers[index] as {
        output: { message: { content: Record<string, unknown>[] } };
      };
      const reasoning = answer.output.message.content[0]?.reasoningContent as {
        reasoningText: { text: string; signature: string };
      };
      // The real signature, byte for byte, with the usage and stop reason the service reported
      expect(call.response).toMatchObject({
        reasoning: reasoning.reasoningText.text,
        signature: reasoning.reasoningText.signature,
        stopReason: "tool_use",
        usage:
          index === 0 ? { inputTokens: 1450, outputTokens: 38 } : { inputTokens: 1620, outputTokens: 96 },
      });
    }

    // Act: replay offline (no upstream variable, no credentials), strict
    const replayDir = folder("goal-loops-replay-");
    writeFixtures(replayDir, { "release-run": JSON.parse(text) });
    const replay = await startLocalStackProcess(replayDir, { args: ["--in-memory"] });
    let replayed: GoalSnapshot;
    try {
      const accepted = await replay.client.submitGoal(exampleGoal("scripted:release-run"));
      replayed = (await followGoal(replay.client, accepted.goalId, { deadlineMs: 120_000 })).final;
    } finally {
      await replay.stop();
    }

    // Assess: the same outcome, checks, evidence hashes and usage
    expect(outcomeOf(replayed)).toEqual(outcomeOf(recorded));
    expect(replayed.lastEvidence).toMatchObject({ kind: "artifact", path: "summary.md" });
    expect(upstream.calls().length).toBe(3);
  });
});
