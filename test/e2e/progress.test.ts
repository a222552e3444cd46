import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allEvents, type E2eStack, followGoal } from "./local-stack-harness";
import { sharedE2eStack } from "./shared-e2e-stack";

/** A model that keeps busy: a new file no check names, every turn. */
const busyFixture = {
  reason: Array.from({ length: 6 }, (_, turn) => ({
    toolUse: { name: "workspace_write", input: { path: `scratch/idea-${turn}.md`, content: `idea ${turn}` } },
  })),
};

/** Writes the summary, then (asked again after a rejection) a better one. */
const signOffFixture = {
  reason: [
    { toolUse: { name: "workspace_write", input: { path: "summary.md", content: "Release 2.0" } } },
    {
      toolUse: {
        name: "workspace_write",
        input: { path: "summary.md", content: "Release 2.0: faster builds and a new CLI" },
      },
    },
  ],
};

describe("progress toward the contract, on the local stack", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await sharedE2eStack();
    e2e.writeFixture("busy-writer", busyFixture);
    e2e.writeFixture("sign-off", signOffFixture);
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it("pauses a busy model that writes a new unrelated file every turn after maxNoProgressCycles", async () => {
    // Act
    const accepted = await e2e.client.submitGoal({
      objective: "Write the release summary",
      successChecks: [
        {
          id: "summary",
          description: "summary.md mentions 2.0",
          verify: { kind: "artifact", path: "summary.md", contains: "2.0" },
        },
      ],
      limits: { maxSteps: 20, maxNoProgressCycles: 3 },
      pattern: "react",
      models: { default: "scripted:busy-writer" },
    });
    const { final } = await followGoal(e2e.client, accepted.goalId);

    // Assess: three turns, three new files, no progress
    expect(final).toMatchObject({
      status: "paused",
      steps: 3,
      noProgressCycles: 3,
      stopReason: { kind: "no_progress", detail: "maxNoProgressCycles" },
      progress: { overall: 0, checks: { summary: "not_met" } },
    });
    const cycles = (await allEvents(e2e.client, accepted.goalId)).filter(
      (event) => event.type === "no_progress",
    );
    expect(cycles).toHaveLength(3);
    expect(cycles[0]).toMatchObject({
      reasons: [],
      busy: [expect.stringContaining("scratch/idea-0.md"), "new success result of workspace_write"],
    });
  }, 60_000);

  it("asks a human for an approval check through the approval doors, and completes on the approval", async () => {
    // Prepare
    const accepted = await e2e.client.submitGoal({
      objective: "Write the release summary and have the editor sign it off",
      successChecks: [
        {
          id: "summary",
          description: "summary.md mentions 2.0",
          verify: { kind: "artifact", path: "summary.md", contains: "2.0" },
        },
        {
          id: "editor-ok",
          description: "the editor accepts it",
          verify: { kind: "approval", prompt: "Is summary.md good enough to publish?" },
        },
      ],
      pattern: "react",
      models: { default: "scripted:sign-off" },
    });

    // Act: rejected once with a comment, the agent rewrites, approved the second time
    const first = (await followGoal(e2e.client, accepted.goalId)).final;
    const [asked] = (await e2e.client.listApprovals("pending")).filter(
      (item) => item.goalId === accepted.goalId,
    );
    await e2e.client.decideApproval(asked?.approvalId ?? "none", "reject", "List the highlights");
    const again = await waitedOnAnother(accepted.goalId, asked?.approvalId ?? "");
    const [askedAgain] = (await e2e.client.listApprovals("pending")).filter(
      (item) => item.goalId === accepted.goalId,
    );
    await e2e.client.decideApproval(askedAgain?.approvalId ?? "none", "approve");
    const final = await waitedOnAnother(accepted.goalId, askedAgain?.approvalId ?? "");

    // Assess
    expect(first).toMatchObject({
      status: "waiting",
      satisfiedChecks: ["summary"],
      progress: { overall: 0.75, checks: { summary: "met", "editor-ok": "partial" } },
    });
    expect(asked).toMatchObject({ action: { kind: "check" } });
    expect(asked?.action.summary).toContain("Is summary.md good enough to publish?");
    expect(again).toMatchObject({ status: "waiting", steps: 2 });
    expect(final).toMatchObject({
      status: "completed",
      satisfiedChecks: ["summary", "editor-ok"],
      progress: { overall: 1 },
      lastEvidence: { checkId: "editor-ok", kind: "approval", approvalId: askedAgain?.approvalId },
    });
  }, 60_000);

  /** The goal once it no longer waits on `approvalId` and has settled again. */
  async function waitedOnAnother(goalId: string, approvalId: string) {
    await e2e.stack.events.idle();
    for (const until = Date.now() + 30_000; Date.now() < until; ) {
      const goal = await e2e.client.getGoal(goalId);
      if (goal.waitingFor?.approvalId !== approvalId) break;
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
    }
    return (await followGoal(e2e.client, goalId)).final;
  }
});
