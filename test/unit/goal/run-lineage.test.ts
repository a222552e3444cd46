import { describe, expect, it } from "vitest";
import { continueAsNew, fail, pause, resume, retry } from "../../../lambdas/core/goal/goal-lifecycle";
import type { GoalRecord } from "../../../lambdas/core/goal/goal-record";
import { reattachRun } from "../../../lambdas/core/goal/reattach-run";
import { lineagePosition, lineageRunId, sameRun } from "../../../lambdas/core/goal/run-lineage";
import { checkpointRunId, takeOver } from "../../../lambdas/core/goal/run-takeover";
import { nextRunId } from "../../../lambdas/core/loop/run-ids";
import { buildGoal, minutesLater } from "./support";

/**
 * What may happen to a goal's run between two of its steps: a take-over in a new run (re-attach
 * after a restart, a retry as a new run), the same run again (redrive), a new count (continue-as-new,
 * a human resume), or one more iteration of the loop.
 */
const OPS = ["reattach", "retry", "redrive", "continue", "resume", "iterate"] as const;
type Op = (typeof OPS)[number];

/** Every sequence of `length` ops. */
function sequences(length: number): Op[][] {
  if (length === 0) return [[]];
  return sequences(length - 1).flatMap((shorter) => OPS.map((op) => [...shorter, op]));
}

const LATER = minutesLater(1);

function apply(record: GoalRecord, op: Op): GoalRecord {
  const newRunId = nextRunId(record.runId);
  const failed = () =>
    fail(record, { kind: "infrastructure", detail: "States.Timeout", message: "x" }, LATER);
  switch (op) {
    case "reattach":
      return reattachRun(record, { newRunId, now: LATER }).record;
    case "retry":
      return retry(failed().record, { newRunId, now: LATER, by: "ana" }).record;
    case "redrive":
      // RecordFailure, run again by the redrive, hands the same run back to the loop.
      return { ...retry(failed().record, { now: LATER, by: "ana" }).record, redriving: undefined };
    case "continue":
      return continueAsNew(record, { newRunId, now: LATER }).record;
    case "resume": {
      const paused = pause(
        record,
        { kind: "no_progress", detail: "maxNoProgressCycles", message: "x" },
        LATER,
      );
      return resume(paused.record, { newRunId, now: LATER }).record;
    }
    case "iterate":
      return { ...record, runIteration: record.runIteration + 1 };
  }
}

/** A position the goal recorded in some run (a gate, a plan step), with what the test knows of it. */
interface Recorded {
  readonly ref: { readonly runId: string; readonly iteration: number };
  /** How many times the count started again before it was recorded (continue-as-new, resume). */
  readonly count: number;
  readonly checkpointRunId: string;
}

function recordedAt(record: GoalRecord, count: number): Recorded {
  const position = { runId: record.runId, iteration: record.runIteration };
  return {
    ref: lineagePosition(record, position),
    count,
    checkpointRunId: checkpointRunId(record, position),
  };
}

/** Runs `ops` from a new goal, recording a position before each op and after the last. */
function chain(ops: readonly Op[]) {
  let record = buildGoal();
  let count = 0;
  const recorded: Recorded[] = [];
  for (const op of ops) {
    recorded.push(recordedAt(record, count));
    record = apply(record, op);
    if (op === "continue" || op === "resume") count += 1;
  }
  recorded.push(recordedAt(record, count));
  return { final: record, count, recorded };
}

describe("a run's lineage", () => {
  it.each([0, 1, 2, 3, 4, 5])(
    "tells, after every chain of %i runs, which recorded positions are the current run's",
    (length) => {
      // Prepare
      const problems: string[] = [];

      // Act
      for (const ops of sequences(length)) {
        const { final, count, recorded } = chain(ops);
        const now = { runId: final.runId, iteration: final.runIteration };
        for (const [index, { ref, count: at, checkpointRunId: key }] of recorded.entries()) {
          const sameLineage = at === count;
          const sameIteration = sameLineage && ref.iteration === final.runIteration;
          const seen = {
            lineage: sameRun(final, ref, { runId: final.runId }),
            iteration: sameRun(final, ref, now),
            checkpoint: key === checkpointRunId(final, { runId: final.runId, iteration: ref.iteration }),
          };
          const expected = { lineage: sameLineage, iteration: sameIteration, checkpoint: sameLineage };
          if (JSON.stringify(seen) !== JSON.stringify(expected)) {
            problems.push(`${ops.join(" → ") || "(none)"}: position ${index} ${JSON.stringify(seen)}`);
          }
        }
      }

      // Assess
      expect(problems).toEqual([]);
    },
  );

  it("names a lineage by its first run, handed on by every take-over, and kept small", () => {
    // Act
    const { final } = chain(["reattach", "retry", "reattach", "redrive", "reattach"]);

    // Assess
    expect(final).toMatchObject({ runId: "run-5", previousRunId: "run-4" });
    expect(final.takeover).toEqual({ runId: "run-1", iteration: 0 });
    expect(lineageRunId(final, "run-5")).toBe("run-1");
    expect(lineagePosition(final, { runId: "run-5", iteration: 0, stepId: "s" })).toEqual({
      runId: "run-1",
      iteration: 0,
      stepId: "s",
    });
  });

  it("starts a new lineage at continue-as-new and at a resume", () => {
    // Act
    const continued = chain(["reattach", "continue", "reattach", "retry"]).final;
    const resumed = chain(["retry", "resume"]).final;

    // Assess
    expect(continued.takeover?.runId).toBe("run-3");
    expect(
      sameRun(continued, { runId: "run-1", iteration: 0 }, { runId: continued.runId, iteration: 0 }),
    ).toBe(false);
    expect(resumed.takeover).toBeUndefined();
    expect(lineageRunId(resumed, resumed.runId)).toBe("run-3");
  });

  it("counts a position recorded under the current run's own id as its lineage's", () => {
    // Prepare: a gate written before lineages were recorded, under the run that asked for it
    const taken = chain(["reattach", "reattach"]).final;
    const gate = { runId: taken.runId, iteration: taken.runIteration };

    // Act
    const next = { ...taken, ...takeOver(taken, "run-4") };

    // Assess
    expect(sameRun(taken, gate, { runId: "run-1", iteration: 0 })).toBe(true);
    expect(lineagePosition(taken, gate)).toEqual({ runId: "run-1", iteration: 0 });
    expect(next.takeover?.runId).toBe("run-1");
  });
});
