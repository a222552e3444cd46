import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allEvents, type E2eStack, followGoal } from "./local-stack-harness";
import { sharedE2eStack } from "./shared-e2e-stack";

const ITERATIONS = 120;

/**
 * 120 reason turns, each a new draft of final.md (the file the check names: progress every cycle),
 * and the summaries a goal this long needs: each turn goes back with its thinking and the state it
 * answered, so the history passes the context budget and is compacted every few dozen steps.
 */
function longRunFixture() {
  const reason = Array.from({ length: ITERATIONS }, (_, index) => ({
    toolUse: {
      name: "workspace_write",
      input:
        index === ITERATIONS - 1
          ? { path: "final.md", content: `Final report after ${ITERATIONS} steps` }
          : { path: "final.md", content: `draft ${index}` },
    },
    usage: { inputTokens: 100, outputTokens: 10 },
  }));
  const summarize = Array.from({ length: ITERATIONS / 8 }, (_, index) => ({
    text: `Drafts of final.md through step ${(index + 1) * 8} written; the final report is left.`,
    usage: { inputTokens: 50, outputTokens: 5 },
  }));
  return { reason, summarize };
}

describe("continue-as-new on the local stack", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await sharedE2eStack();
    e2e.writeFixture("long-run", longRunFixture());
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it("carries a 120-iteration goal across two continue-as-new boundaries with state, usage and events intact", async () => {
    // Prepare
    const spec = {
      objective: "Keep notes for every step, then write final.md",
      successChecks: [
        {
          id: "final-report",
          description: "final.md exists",
          verify: { kind: "artifact", path: "final.md", contains: `${ITERATIONS} steps` },
        },
      ],
      limits: { maxSteps: 500, maxCostUsd: 5 },
      pattern: "react",
      models: { default: "scripted:long-run" },
    };

    // Act
    const accepted = await e2e.client.submitGoal(spec);
    const { final } = await followGoal(e2e.client, accepted.goalId, { deadlineMs: 240_000 });

    // Assess
    expect(final.status).toBe("completed");
    expect(final.steps).toBe(ITERATIONS);
    expect(final.usageByRole.reason).toMatchObject({
      modelCalls: ITERATIONS,
      inputTokens: 100 * ITERATIONS,
      outputTokens: 10 * ITERATIONS,
    });
    const summaries = final.usageByRole.summarize?.modelCalls ?? 0;
    expect(final.usage).toMatchObject({
      modelCalls: ITERATIONS + summaries,
      inputTokens: 100 * ITERATIONS + 50 * summaries,
      outputTokens: 10 * ITERATIONS + 5 * summaries,
    });
    expect(final.runId).toBe("r3");
    const events = await allEvents(e2e.client, accepted.goalId);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(new Set(events.map((event) => event.runId).filter(Boolean))).toEqual(new Set(["r1", "r2", "r3"]));
    const executions = e2e.stack.executions
      .list()
      .filter((execution) => execution.name.startsWith(accepted.goalId))
      .map((execution) => execution.name)
      .sort();
    expect(executions).toEqual([`${accepted.goalId}-r1`, `${accepted.goalId}-r2`, `${accepted.goalId}-r3`]);
  }, 300_000);
});
