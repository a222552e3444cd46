import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { E2eStack } from "./local-stack-harness";
import { runCli } from "./run-cli";
import { sharedE2eStack } from "./shared-e2e-stack";

describe("goal-loops run (the CLI)", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await sharedE2eStack();
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it("exits 0 on a completed goal and shows its evidence", async () => {
    // Act
    const port = new URL(e2e.stack.apiUrl).port;
    const result = await runCli(["run", "examples/goals/write-release-summary.json", "--port", port]);

    // Assess
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/completed/);
    expect(result.stdout).toMatch(/✓ summary-written/);
    expect(result.stdout).toMatch(/last evidence: artifact for summary-written \(strong\)/);
  }, 60_000);

  it("exits 2 when the goal pauses, with --json events", async () => {
    // Act
    const port = new URL(e2e.stack.apiUrl).port;
    const result = await runCli([
      "run",
      "examples/goals/claims-done-without-evidence.json",
      "--port",
      port,
      "--json",
    ]);

    // Assess
    expect(result.code).toBe(2);
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string });
    expect(lines.filter((line) => line.type === "no_progress")).toHaveLength(3);
    expect(lines.at(-1)).toMatchObject({ type: "summary", snapshot: { status: "paused" } });
  }, 60_000);

  it("starts the local stack in process when none answers, and exits 1 on a refused goal file", async () => {
    // Act
    const result = await runCli(["run", "test/e2e/fixtures/exhausts-after-one-turn.json", "--port", "1"]);

    // Assess: the file is a fixture, not a GoalSpec, so the stack it started refuses it
    expect(result.stderr).toMatch(/starting one in this process/);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/was refused: 400 ValidationError/);
    expect(result.stdout).toMatch(/objective/);
  }, 120_000);
});

describe("the CLI's output", () => {
  it("stops quietly when its reader has gone (| head), exiting as a shell reports a closed pipe", async () => {
    // Act: `goal-loops tools` writes its table after it read the configuration, into a closed pipe
    const result = await runCli(["tools"], { closedStdout: true });

    // Assess: 128 + SIGPIPE, and no unhandled EPIPE with its stack trace
    expect(result.code).toBe(141);
    expect(result.stderr).not.toContain("EPIPE");
    expect(result.stderr).not.toContain("Unhandled");
  }, 60_000);
});
