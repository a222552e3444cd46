import { describe, expect, it } from "vitest";
import type { GoalEvent } from "../../../lambdas/core/goal/goal-event";
import type { GoalRecord } from "../../../lambdas/core/goal/goal-record";
import { toSnapshot } from "../../../lambdas/core/goal/snapshot";
import { type LiveState, renderLiveView } from "../../../lib/local/cli/live-view";
import { aGoalRecord } from "../../support/goal-record-builder";

function event(seq: number, type: string, fields: Record<string, string | number> = {}): GoalEvent {
  return { goalId: "g-live", seq, type, at: "2026-01-01T00:00:00.000Z", runId: "r1", ...fields };
}

/** The view a follower shows after each event, as `watch` folds a stream into its state. */
function viewsAlong(record: GoalRecord, events: readonly GoalEvent[]): string[][] {
  const snapshot = toSnapshot(record);
  return events.map((lastEvent): string[] => renderLiveView({ snapshot, lastEvent } satisfies LiveState));
}

describe("the CLI's compact live view", () => {
  it("shows the header, the checklist and what the goal is doing now, event after event", () => {
    // Prepare
    const record = aGoalRecord({ goalId: "g-live", status: "running", runId: "r1" });
    const events = [
      event(1, "run.started"),
      event(2, "model.usage", { role: "reason", outputTokens: 42 }),
      event(3, "tool.called", { name: "workspace_write" }),
      event(4, "model.turn"),
    ];

    // Act
    const views = viewsAlong(record, events);

    // Assess
    const [header] = views[0] ?? [];
    expect(header).toMatch(/^Goal g-live running · \w+ · run r1 · step \d+ · \$\d+\.\d{4} · \d+ tokens$/);
    expect(views.map((lines) => lines.at(-1))).toEqual([
      expect.stringMatching(/^ {2}Now: run\.started/),
      "  Now: reason answered (42 tokens out)",
      "  Now: called workspace_write",
      "  Now: acting on the model's turn",
    ]);
    for (const lines of views) {
      expect(lines).toContain("  Checks");
      for (const id of record.spec.successChecks.map((check) => check.id)) {
        expect(lines).toContain(`    ○ ${id}`);
      }
    }
  });

  it("says what a waiting goal waits for, and a stopped goal's status, whatever the last event", () => {
    // Prepare
    const waiting: GoalRecord = {
      ...aGoalRecord({ goalId: "g-live" }),
      status: "waiting",
      activeTask: null,
      waitingFor: { kind: "approval", approvalId: "ap-1", reason: "approve before it runs: notify #ops" },
      resumeCondition: { eventType: "Approval Decided", approvalId: "ap-1", revision: 1 },
    };
    const paused: GoalRecord = { ...aGoalRecord({ goalId: "g-live" }), status: "paused", activeTask: null };

    // Act
    const [waitingView] = viewsAlong(waiting, [event(5, "approval.requested")]);
    const [pausedView] = viewsAlong(paused, [event(6, "goal.paused")]);

    // Assess
    expect(waitingView?.at(-1)).toBe("  Now: waiting: approve before it runs: notify #ops");
    expect(pausedView?.at(-1)).toBe("  Now: paused");
  });

  it("turns the spinner on a terminal and prints none to a pipe", () => {
    // Prepare
    const state: LiveState = { snapshot: toSnapshot(aGoalRecord({ goalId: "g-live" })) };

    // Act
    const [onTerminal] = renderLiveView(state, 1);
    const [nextFrame] = renderLiveView(state, 2);
    const [onPipe] = renderLiveView(state);

    // Assess
    expect(onTerminal).toMatch(/^⠙ Goal g-live/);
    expect(nextFrame).toMatch(/^⠹ Goal g-live/);
    expect(onPipe).toMatch(/^Goal g-live/);
  });
});
