import { describe, expect, it } from "vitest";
import { GoalStatusError, UnsatisfiedChecksError, ValidationError } from "../../../lambdas/core/goal/errors";
import { checkProgress, satisfiedCheckIds } from "../../../lambdas/core/goal/evidence/check-evidence";
import type { CycleObservationsInput } from "../../../lambdas/core/goal/evidence/cycle-observations";
import { cycleFingerprints, recordCycle } from "../../../lambdas/core/goal/evidence/record-cycle";
import { complete } from "../../../lambdas/core/goal/goal-lifecycle";
import type { GoalRecord } from "../../../lambdas/core/goal/goal-record";
import { artifact, buildGoal, frozen, goalIn, minutesLater, SATISFYING, toolResult } from "./support";

/**
 * Runs cycles one after another, as the verify step does, and returns every intermediate change.
 * `seen` plays the goal store's fingerprint items (`GoalStore.seenBefore`).
 */
function cycles(record: GoalRecord, observations: readonly CycleObservationsInput[]) {
  let current = record;
  const seen = new Set<string>();
  return observations.map((observed, iteration) => {
    const fingerprints = cycleFingerprints(observed);
    const seenBefore = fingerprints.filter((fingerprint) => seen.has(fingerprint));
    const change = recordCycle(current, observed, {
      now: minutesLater(iteration + 1),
      iteration,
      seenBefore,
    });
    for (const fingerprint of fingerprints) seen.add(fingerprint);
    current = frozen(change);
    return change;
  });
}

const eventTypes = (change: { events: readonly { type: string }[] }) =>
  change.events.map((event) => event.type);

describe("recordCycle: judging checks from recorded observations", () => {
  it("satisfies artifact and tool_result checks and records strong evidence", () => {
    // Act
    const change = recordCycle(buildGoal(), SATISFYING, { now: minutesLater(1), iteration: 0 });

    // Assess
    expect(satisfiedCheckIds(change.record)).toEqual(["report", "tests-pass"]);
    expect(change.record.evidence.map((item) => [item.checkId, item.kind, item.strength])).toEqual([
      ["report", "artifact", "strong"],
      ["tests-pass", "tool_result", "strong"],
    ]);
    expect(eventTypes(change)).toEqual(["evidence.recorded", "evidence.recorded", "progress"]);
    expect(change.record).toMatchObject({ steps: 1, runIteration: 1, noProgressCycles: 0 });
  });

  it("does not satisfy an artifact check whose content lacks the expected text", () => {
    // Prepare
    const observations = { artifacts: [artifact("out/report.md", "# Release\nno summary yet")] };

    // Act
    const { record } = recordCycle(buildGoal(), observations, { now: minutesLater(1), iteration: 0 });

    // Assess
    expect(satisfiedCheckIds(record)).toEqual([]);
  });

  it("cannot judge `contains` without the content", () => {
    // Prepare
    const { content: _content, ...withoutContent } = artifact("out/report.md", "## Summary");

    // Act
    const { record } = recordCycle(
      buildGoal(),
      { artifacts: [withoutContent] },
      { now: minutesLater(1), iteration: 0 },
    );

    // Assess
    expect(satisfiedCheckIds(record)).toEqual([]);
  });

  it("rejects an artifact whose content does not hash to its sha256, naming the field", () => {
    // Prepare
    const forged = { ...artifact("out/report.md", "old"), content: "## Summary" };

    // Act
    const attempt = () =>
      recordCycle(buildGoal(), { artifacts: [forged] }, { now: minutesLater(1), iteration: 0 });

    // Assess
    expect(attempt).toThrow(ValidationError);
    try {
      attempt();
    } catch (error) {
      expect((error as ValidationError).issues.map((issue) => issue.path)).toEqual(["artifacts.0.content"]);
    }
  });

  it("revokes artifact evidence when the file changes into one that fails the check", () => {
    // Prepare
    const [, second] = cycles(buildGoal(), [
      { artifacts: [artifact("out/report.md", "## Summary")] },
      { artifacts: [artifact("out/report.md", "summary removed")] },
    ]);

    // Assess
    expect(second && satisfiedCheckIds(second.record)).toEqual([]);
    expect(second && eventTypes(second)).toContain("evidence.revoked");
  });

  it.each([
    ["the wrong status", toolResult("run_tests", "0 failed", "error")],
    ["another tool", toolResult("lint", "0 failed")],
    ["text that does not contain the expectation", toolResult("run_tests", "3 failed")],
  ])("does not satisfy a tool_result check with %s", (_label, result) => {
    // Act
    const { record } = recordCycle(
      buildGoal(),
      { toolResults: [result] },
      { now: minutesLater(1), iteration: 0 },
    );

    // Assess
    expect(satisfiedCheckIds(record)).toEqual([]);
  });

  it("matches `equals` against a JSON result regardless of key order", () => {
    // Prepare
    const goal = buildGoal({
      successChecks: [
        {
          id: "deployed",
          description: "The deployment reports healthy",
          verify: {
            kind: "tool_result",
            tool: "http_request",
            expect: { equals: { status: 200, healthy: true } },
          },
        },
      ],
    });
    const result = {
      ...toolResult("http_request", ""),
      resultText: undefined,
      resultJson: { healthy: true, status: 200 },
    };

    // Act
    const { record } = recordCycle(goal, { toolResults: [result] }, { now: minutesLater(1), iteration: 0 });

    // Assess
    expect(satisfiedCheckIds(record)).toEqual(["deployed"]);
  });

  it("satisfies an approval check only with a recorded approve decision", () => {
    // Prepare
    const goal = buildGoal({
      successChecks: [
        { id: "signed-off", description: "A human signs off", verify: { kind: "approval", prompt: "OK?" } },
      ],
    });
    const decision = { checkId: "signed-off", approvalId: "appr-1", decidedBy: "alice" };

    // Act
    const [rejected, approved] = cycles(goal, [
      { approvals: [{ ...decision, decision: "reject" }] },
      { approvals: [{ ...decision, approvalId: "appr-2", decision: "approve" }] },
    ]);

    // Assess
    expect(rejected && satisfiedCheckIds(rejected.record)).toEqual([]);
    expect(approved && satisfiedCheckIds(approved.record)).toEqual(["signed-off"]);
    expect(approved?.record.evidence[0]).toMatchObject({
      kind: "approval",
      approvalId: "appr-2",
      decidedBy: "alice",
    });
  });
});

describe("recordCycle: progress", () => {
  it("counts the same tool call with the same result only once", () => {
    // Prepare
    const failing = { toolResults: [toolResult("run_tests", "3 failed")] };

    // Act
    const [first, second] = cycles(buildGoal(), [failing, failing]);

    // Assess
    expect(first && eventTypes(first)).toContain("progress");
    expect(second && eventTypes(second)).toEqual(["no_progress"]);
    expect(second?.record.noProgressCycles).toBe(1);
  });

  it("does not count what the goal store says an earlier step saw, nor grow the record with it", () => {
    // Prepare
    const failing = { toolResults: [toolResult("run_tests", "3 failed")] };
    const seenBefore = cycleFingerprints(failing);

    // Act
    const change = recordCycle(buildGoal(), failing, { now: minutesLater(1), iteration: 0, seenBefore });

    // Assess
    expect(eventTypes(change)).toEqual(["no_progress"]);
    expect(change.record.seenFingerprints).toBeUndefined();
  });

  it("still treats the seenFingerprints of a record written before the fingerprint items as seen", () => {
    // Prepare
    const failing = { toolResults: [toolResult("run_tests", "3 failed")] };
    const legacy = frozen({
      record: { ...buildGoal(), seenFingerprints: cycleFingerprints(failing) },
      events: [],
    });

    // Act
    const change = recordCycle(legacy, failing, { now: minutesLater(1), iteration: 0 });

    // Assess
    expect(eventTypes(change)).toEqual(["no_progress"]);
    expect(change.record.seenFingerprints).toEqual(legacy.seenFingerprints);
  });

  it("does not count a model saying 'done' (or claiming checks) as progress, nor complete the goal", () => {
    // Prepare
    const claims = {
      modelClaims: { done: true, satisfiedChecks: ["report", "tests-pass"] },
      note: "All done!",
    };

    // Act
    const change = recordCycle(buildGoal(), claims, { now: minutesLater(1), iteration: 0 });

    // Assess
    expect(eventTypes(change)).toEqual(["no_progress"]);
    expect(change.events[0]).toMatchObject({
      modelClaimedDone: true,
      modelClaimedChecks: ["report", "tests-pass"],
    });
    expect(change.record.status).toBe("running");
    expect(satisfiedCheckIds(change.record)).toEqual([]);
    expect(change.record.progressNotes.at(-1)).toContain(
      "model claimed done, unsatisfied: report, tests-pass",
    );
    expect(() => complete(frozen(change), minutesLater(2))).toThrow(UnsatisfiedChecksError);
  });

  it("counts a cleared blocker as progress once", () => {
    // Prepare
    const cleared = { clearedBlockers: ["missing-credentials"] };

    // Act
    const [first, second] = cycles(buildGoal(), [cleared, cleared]);

    // Assess
    expect(first?.events.at(-1)).toMatchObject({
      type: "progress",
      reasons: ["blocker missing-credentials cleared"],
    });
    expect(second && eventTypes(second)).toEqual(["no_progress"]);
  });

  it("counts a new version of a file an unsatisfied check names as progress, and the check as partial", () => {
    // Prepare
    const stuck = { ...buildGoal(), noProgressCycles: 2 };

    // Act: the report, not yet with its summary
    const change = recordCycle(
      stuck,
      { artifacts: [artifact("out/report.md", "# Release\ndraft 2")] },
      { now: minutesLater(1), iteration: 4 },
    );

    // Assess
    expect(change.record.noProgressCycles).toBe(0);
    expect(change.record.lastCycle).toMatchObject({ progress: true, iteration: 4 });
    expect(change.record.progressNotes).toEqual([expect.stringContaining("new artifact out/report.md")]);
    expect(checkProgress(change.record)).toEqual({
      overall: 0.25,
      checks: { report: "partial", "tests-pass": "not_met" },
    });
  });

  it("pauses a busy model: new files no check names and results of tools no check names are not progress", () => {
    // Prepare: a new unrelated file every turn, and a notify nobody asked for
    const busy = [1, 2, 3].map((turn) => ({
      artifacts: [artifact(`scratch/notes-${turn}.md`, `thoughts ${turn}`)],
      toolResults: [toolResult("workspace_write", `wrote notes-${turn}`)],
    }));

    // Act
    const changes = cycles(buildGoal(), busy);

    // Assess
    expect(changes.map((change) => change.record.status)).toEqual(["running", "running", "paused"]);
    expect(changes[0]?.events[0]).toMatchObject({
      type: "no_progress",
      reasons: [],
      busy: [
        expect.stringContaining("new artifact scratch/notes-1.md"),
        "new success result of workspace_write",
      ],
    });
  });

  it("counts new information a read-only call brought back, once", () => {
    // Prepare
    const read = { toolResults: [{ ...toolResult("workspace_read", "# Release notes"), reads: true }] };

    // Act
    const [first, second] = cycles(buildGoal(), [read, read]);

    // Assess
    expect(first?.events.at(-1)).toMatchObject({
      type: "progress",
      reasons: ["new success result of workspace_read"],
    });
    expect(second && eventTypes(second)).toEqual(["no_progress"]);
  });

  it("counts a tool that succeeds after failing as a cleared blocker", () => {
    // Prepare
    const failed = { toolResults: [toolResult("http_request", "HttpStatus503", "error")] };
    const works = { toolResults: [toolResult("http_request", "posted")] };

    // Act
    const [first, second] = cycles(buildGoal(), [failed, works]);

    // Assess
    expect(first && eventTypes(first)).toEqual(["no_progress"]);
    expect(first?.record.openBlockers).toEqual(["http_request"]);
    expect(second?.events.at(-1)).toMatchObject({
      type: "progress",
      reasons: ["blocker cleared: http_request succeeds after failing"],
    });
    expect(second?.record.openBlockers).toEqual([]);
  });

  it("counts progress the pattern saw itself (a plan step that succeeded)", () => {
    // Act
    const change = recordCycle(
      buildGoal(),
      {},
      {
        now: minutesLater(1),
        iteration: 0,
        progressFrom: ["plan step s1 succeeded"],
      },
    );

    // Assess
    expect(change.events.at(-1)).toMatchObject({ type: "progress", reasons: ["plan step s1 succeeded"] });
  });

  it("pauses the goal after maxNoProgressCycles (3) cycles in a row without progress", () => {
    // Act
    const changes = cycles(buildGoal(), [{}, { note: "still thinking" }, { modelClaims: { done: true } }]);

    // Assess
    expect(changes.map((change) => change.record.status)).toEqual(["running", "running", "paused"]);
    const paused = changes[2]?.record;
    expect(paused?.noProgressCycles).toBe(3);
    expect(paused?.activeTask).toBeNull();
    expect(paused?.stopReason).toMatchObject({ kind: "no_progress", detail: "maxNoProgressCycles" });
    expect(changes[2] && eventTypes(changes[2])).toEqual(["no_progress", "goal.paused"]);
  });

  it("keeps the last 10 progress notes", () => {
    // Prepare
    const many = Array.from({ length: 12 }, (_, index) => ({ clearedBlockers: [`blocker-${index}`] }));

    // Act
    const last = cycles(buildGoal(), many).at(-1)?.record;

    // Assess
    expect(last?.progressNotes).toHaveLength(10);
    expect(last?.progressNotes[0]).toContain("blocker-2");
    expect(last?.progressNotes.at(-1)).toContain("blocker-11");
  });

  it("refuses a cycle on a goal that is not running", () => {
    // Act & Assess
    expect(() => recordCycle(goalIn("paused"), {}, { now: minutesLater(1), iteration: 0 })).toThrow(
      GoalStatusError,
    );
  });
});
