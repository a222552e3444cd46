import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGoal } from "../../lib/local/cli/run-goal";
import { type E2eStack, followGoal } from "./local-stack-harness";
import { runCli } from "./run-cli";
import { sharedE2eStack } from "./shared-e2e-stack";

/** Tells ops through `notify` (irreversible, not pre-authorized): the goal waits for an approval first. */
const NOTIFY_GOAL = {
  objective: "Tell ops that release 2.0 is out",
  successChecks: [
    {
      id: "ops-told",
      description: "notify succeeded",
      verify: { kind: "tool_result", tool: "notify", expect: { status: "success" } },
    },
  ],
  tools: ["notify"],
  pattern: "react",
  models: { default: "scripted:cli-notify" },
};

function acceptedGoalId(stdout: string): string {
  const match = /^Goal (\S+) accepted/m.exec(stdout);
  if (!match?.[1]) throw new Error(`no accepted goal in: ${stdout}`);
  return match[1];
}

describe("goal-loops control subcommands and approvals during run (the CLI)", () => {
  let e2e: E2eStack;
  let port: string;
  let goalDir: string;
  let goalFile: string;

  beforeAll(async () => {
    e2e = await sharedE2eStack();
    port = new URL(e2e.stack.apiUrl).port;
    goalDir = mkdtempSync(join(tmpdir(), "goal-loops-cli-"));
    goalFile = join(goalDir, "notify-goal.json");
    writeFileSync(goalFile, JSON.stringify(NOTIFY_GOAL));
    // A fresh stack's first answer is slow (cold sandboxes): warm it so the CLI finds it at once.
    await e2e.client.listApprovals("pending");
  });

  afterAll(async () => {
    await e2e?.stop();
    if (goalDir) rmSync(goalDir, { recursive: true, force: true });
  });

  async function outboxFor(goalId: string) {
    const response = await fetch(`${e2e.stack.apiUrl}/_local/outbox`);
    const outbox = (await response.json()) as {
      items: { goalId: string; channel: string; message: unknown }[];
    };
    return outbox.items.filter((item) => item.goalId === goalId);
  }

  it("run --auto-approve approves the notify, which runs once, and exits 0", async () => {
    // Act
    const result = await runCli(["run", goalFile, "--port", port, "--auto-approve"]);

    // Assess
    expect(result.stderr).not.toMatch(/starting one in this process/);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Approval \S+ approved \(/);
    expect(result.stdout).toMatch(/completed/);
    const goalId = acceptedGoalId(result.stdout);
    const notified = (await outboxFor(goalId)).filter((item) => item.channel === "ops");
    expect(notified).toEqual([expect.objectContaining({ message: "release 2.0 is out" })]);
  }, 60_000);

  it("run without a terminal exits 2 while waiting; status shows it; approve decides once, a second approve exits 1", async () => {
    // Prepare
    const run = await runCli(["run", goalFile, "--port", port]);
    const goalId = acceptedGoalId(run.stdout);
    const waiting = await e2e.client.getGoal(goalId);
    const approvalId = waiting.waitingFor?.approvalId ?? "";

    // Act
    const status = await runCli(["status", goalId, "--port", port]);
    const statusJson = await runCli(["status", goalId, "--port", port, "--json"]);
    const approve = await runCli(["approve", approvalId, "--port", port, "--comment", "ship it"]);
    const again = await runCli(["approve", approvalId, "--port", port]);
    const { final } = await followGoal(e2e.client, goalId, { deadlineMs: 30_000 });

    // Assess
    expect(run.code).toBe(2);
    expect(waiting.status).toBe("waiting");
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`Goal ${goalId} waiting`));
    expect(status.stdout).toMatch(new RegExp(`goal-loops approve ${approvalId}`));
    expect(status.stdout).toMatch(/action: .*notify/);
    expect(JSON.parse(statusJson.stdout)).toMatchObject({
      goalId,
      status: "waiting",
      waitingFor: { approvalId },
    });
    expect(approve.code).toBe(0);
    expect(approve.stdout).toMatch(new RegExp(`Approval ${approvalId} approved`));
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/409 ApprovalAlreadyDecided/);
    expect(again.stderr).toMatch(/already decided/);
    expect(final.status).toBe("completed");
    expect((await outboxFor(goalId)).filter((item) => item.channel === "ops")).toHaveLength(1);
  }, 90_000);

  it("revise queues a revision of a waiting goal; limits raises its limits; cancel ends it; resume and retry of a goal that is neither paused nor failed exit 1 with the 409 reason", async () => {
    // Prepare
    const run = await runCli(["run", goalFile, "--port", port]);
    const goalId = acceptedGoalId(run.stdout);

    // Act
    const revise = await runCli([
      "revise",
      goalId,
      "--port",
      port,
      "--type",
      "add_constraint",
      "mention",
      "the",
      "date",
    ]);
    const resume = await runCli(["resume", goalId, "--port", port]);
    const retry = await runCli(["retry", goalId, "--port", port]);
    const limits = await runCli([
      "limits",
      goalId,
      "--port",
      port,
      "--max-steps",
      "30",
      "--max-cost-usd",
      "2",
    ]);
    const noLimit = await runCli(["limits", goalId, "--port", port]);
    const cancel = await runCli(["cancel", goalId, "--port", port, "--reason", "not needed"]);
    const final = await untilCancelled(goalId);
    const cancelAgain = await runCli(["cancel", goalId, "--port", port]);

    // Assess
    expect(run.code).toBe(2);
    expect(revise.code).toBe(0);
    expect(revise.stdout).toMatch(/Revision \S+ \(add_constraint\) queued/);
    expect(resume.code).toBe(1);
    expect(resume.stderr).toMatch(/409 InvalidStatus: goal is waiting; resume needs paused/);
    expect(retry.code).toBe(1);
    expect(retry.stderr).toMatch(/409 InvalidStatus: goal is waiting; retry needs failed/);
    expect(limits.code).toBe(0);
    expect(limits.stdout).toMatch(/Limits of goal \S+: \{.*"maxSteps":30.*\}/);
    expect(limits.stdout).toContain('"maxCostUsd":2');
    expect(noLimit.code).toBe(1);
    expect(noLimit.stderr).toMatch(/Name at least one limit/);
    expect(cancel.code).toBe(0);
    expect(final).toMatchObject({
      status: "cancelled",
      stopReason: { kind: "cancelled", message: "not needed" },
    });
    expect(cancelAgain.code).toBe(1);
    expect(cancelAgain.stderr).toMatch(/409 InvalidStatus: goal is cancelled/);
    expect((await outboxFor(goalId)).filter((item) => item.channel === "ops")).toHaveLength(0);
  }, 90_000);

  it("directive states a redirect's checks (--check), status answers the snapshot, a bad check exits 1 naming it", async () => {
    // Prepare
    const run = await runCli(["run", goalFile, "--port", port]);
    const goalId = acceptedGoalId(run.stdout);

    // Act: unquoted words and a quoted directive both work
    const redirect = await runCli([
      "directive",
      goalId,
      "--port",
      port,
      "redirect",
      "Tell support about the release",
      "--check",
      "support-told: tool_result notify success contains support",
    ]);
    const status = await runCli(["directive", goalId, "status", "--port", port]);
    const badCheck = await runCli([
      "directive",
      goalId,
      "--port",
      port,
      "redirect Tell support --check told: smoke signal",
    ]);
    const revise = await runCli([
      "revise",
      goalId,
      "--port",
      port,
      "--type",
      "pivot",
      "--check",
      "summary: artifact summary.md contains 2.0",
      "Write",
      "a",
      "summary",
    ]);
    const events = await e2e.client.listEvents(goalId, 0);

    // Assess
    expect(redirect.code).toBe(0);
    expect(redirect.stdout).toMatch(/Revision \S+ queued for goal/);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(goalId);
    expect(badCheck.code).toBe(1);
    expect(badCheck.stderr).toContain("Invalid --check 'told: smoke signal': unknown kind 'smoke'");
    expect(revise.code).toBe(0);
    const queued = events.items.filter((event) => event.type === "revision.queued");
    expect(queued).toEqual([
      expect.objectContaining({
        revisionType: "redirect",
        content: "Tell support about the release",
        replacesChecks: true,
      }),
      expect.objectContaining({ revisionType: "pivot", content: "Write a summary", replacesChecks: true }),
    ]);
    await runCli(["cancel", goalId, "--port", port]);
  }, 90_000);

  it("prompts approve? [y/n/skip] in a terminal: asks again on a bad answer, y approves and it follows on", async () => {
    // Prepare: the run loop as the CLI drives it with a TTY, the answers scripted
    const questions: string[] = [];
    const answers = ["maybe", "y"];
    const lines: string[] = [];

    // Act
    const exitCode = await runGoal({
      client: e2e.client,
      goalFile,
      mode: "view",
      write: (line) => lines.push(line),
      approvals: {
        kind: "prompt",
        ask: async (question) => {
          questions.push(question);
          return answers.shift() ?? "skip";
        },
      },
    });

    // Assess
    expect(exitCode).toBe(0);
    expect(questions).toEqual(["approve? [y/n/skip] ", "approve? [y/n/skip] "]);
    const output = lines.join("\n");
    expect(output).toMatch(/Approval \S+ for goal \S+ \(revision 1, run r1\)\n {2}action: .*notify/);
    expect(output).toMatch(/Approval \S+ approved/);
    expect(output).toMatch(/completed/);
  }, 60_000);

  it("skip leaves the approval pending and returns 2", async () => {
    // Act
    const lines: string[] = [];
    const exitCode = await runGoal({
      client: e2e.client,
      goalFile,
      mode: "view",
      write: (line) => lines.push(line),
      approvals: { kind: "prompt", ask: async () => "skip" },
    });

    // Assess
    expect(exitCode).toBe(2);
    const goalId = acceptedGoalId(lines.join("\n"));
    expect(await e2e.client.getGoal(goalId)).toMatchObject({ status: "waiting" });
    const pending = await e2e.client.listApprovals("pending");
    expect(pending.filter((approval) => approval.goalId === goalId)).toHaveLength(1);
  }, 60_000);

  it("exits 1 with a clear message when no local stack answers", async () => {
    // Act
    const result = await runCli(["status", "g-nothing", "--port", "1"]);

    // Assess
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /No local stack answers on http:\/\/127\.0\.0\.1:1: start one with `npm start`/,
    );
  }, 30_000);

  /** A cancel lands asynchronously (the resume handler): poll until the goal is cancelled, or give up. */
  async function untilCancelled(goalId: string) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const snapshot = await e2e.client.getGoal(goalId);
      if (snapshot.status === "cancelled" || Date.now() > deadline) return snapshot;
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
    }
  }
});
