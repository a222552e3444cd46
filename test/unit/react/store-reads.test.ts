import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GoalStore } from "../../../lambdas/core/ports/goal-store";
import type { StepLog } from "../../../lambdas/core/ports/step-log";
import { verifyAndReason } from "../../../lambdas/core/react/verify-and-reason";
import {
  calls,
  createGoal,
  type GoalTable,
  ReactLoopDriver,
  ScriptedModel,
  SETTINGS,
  startGoalTable,
  writes,
} from "./support";

/** How long a read waits for the one it should overlap before the test calls them sequential. */
const OVERLAP_WAIT_MS = 2_000;

/** `awaitOverlap` resolves once `started()` was called, or rejects naming `what` after the wait. */
function overlapGate(what: string) {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    started: () => open(),
    async awaitOverlap() {
      let timer: NodeJS.Timeout | undefined;
      const alone = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${what} waited alone: the reads ran one after another`)),
          OVERLAP_WAIT_MS,
        );
      });
      try {
        await Promise.race([opened, alone]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

describe("what VerifyAndReason reads per iteration", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });

  afterAll(async () => {
    await table?.stop();
  });

  /** Three ungated iterations that each write a file; the third completes the goal's check. */
  function threeIterations() {
    return new ScriptedModel({
      reason: [
        calls("workspace_write", { path: "notes.md", content: "plan" }),
        calls("workspace_write", { path: "draft.md", content: "draft" }),
        writes("out/haiku.md", "autumn"),
      ],
    });
  }

  it("reads the step log once per ungated iteration after a run's first: acting reuses the read verify made", async () => {
    // Prepare
    const goal = await createGoal(table);
    const loop = new ReactLoopDriver(table, threeIterations());
    const real = table.adapters.stepLog;
    let reads = 0;
    const counting: StepLog = {
      listRecentSteps: (goalId, limit) => {
        reads += 1;
        return real.listRecentSteps(goalId, limit);
      },
      putStep: (step) => real.putStep(step),
    };
    const ports = { ...loop.ports(), stepLog: counting };
    let answer = await loop.load(goal.goalId);

    // Act
    const readsPerInvocation: number[] = [];
    while (answer.next === "verify") {
      reads = 0;
      answer = await verifyAndReason(ports, SETTINGS, answer);
      readsPerInvocation.push(reads);
    }

    // Assess
    expect(answer.next).toBe("completed");
    expect(await table.adapters.stepLog.listRecentSteps(goal.goalId, 10)).toHaveLength(3);
    // The run's first iteration reads the log again before its tools run (a previous run's last
    // invocation may still be logging); the next two and the final verify read it once.
    expect(readsPerInvocation).toEqual([2, 1, 1, 1]);
  });

  it("starts the step query and the reason call's lookup without waiting for the reads before them", async () => {
    // Prepare: each gated read waits until the read it should overlap has started.
    const goal = await createGoal(table);
    const loop = new ReactLoopDriver(table, threeIterations());
    const first = await loop.verifyAndReason(await loop.load(goal.goalId));
    const real = table.adapters;
    const stepQuery = overlapGate("the compaction query");
    const lookup = overlapGate("the goal read");
    const goals: GoalStore = Object.create(real.goals);
    goals.latestCheckpoint = async (...args) => {
      await stepQuery.awaitOverlap();
      return real.goals.latestCheckpoint(...args);
    };
    goals.getGoal = async (goalId) => {
      await lookup.awaitOverlap();
      return real.goals.getGoal(goalId);
    };
    let lookups = 0;
    goals.findCheckpoint = (key) => {
      lookups += 1;
      lookup.started();
      return real.goals.findCheckpoint(key);
    };
    const stepLog: StepLog = {
      listRecentSteps: (goalId, limit) => {
        stepQuery.started();
        return real.stepLog.listRecentSteps(goalId, limit);
      },
      putStep: (step) => real.stepLog.putStep(step),
    };

    // Act
    const second = await verifyAndReason({ ...loop.ports(goals), stepLog }, SETTINGS, first);

    // Assess
    expect(second).toMatchObject({ iteration: 2, next: "verify" });
    expect((await loop.goal(goal.goalId)).steps).toBe(1);
    // The lookup started early is the one the call used: no second lookup.
    expect(lookups).toBe(1);
  });
});
