import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queueRevision } from "../../../lambdas/core/goal/revisions";
import { loadGoal } from "../../../lambdas/core/loop/load-goal";
import { verifyAndReason } from "../../../lambdas/core/patterns/react/verify-and-reason";
import type { GoalStore } from "../../../lambdas/core/ports/goal-store";
import type { StepLog, StepRecord } from "../../../lambdas/core/ports/step-log";
import type { ToolRunner } from "../../../lambdas/core/ports/tool-runner";
import {
  calls,
  createGoal,
  type GoalTable,
  ReactLoopDriver,
  ScriptedModel,
  SETTINGS,
  says,
  startGoalTable,
  writes,
} from "./support";

/**
 * The goal store, except that before each of its first `times` commits another writer (a human
 * queueing a revision through the API) commits first, so the step's commit meets a newer version.
 */
function contendedStore(goals: GoalStore, times: number): GoalStore & { interruptions: number } {
  let interruptions = 0;
  const contended: GoalStore & { interruptions: number } = Object.create(goals);
  Object.defineProperty(contended, "interruptions", { get: () => interruptions });
  contended.commit = async (record, expectedVersion, events, options) => {
    if (interruptions < times) {
      interruptions += 1;
      const current = await goals.getGoal(record.goalId);
      if (!current) throw new Error("goal vanished");
      const revision = queueRevision(
        current.record,
        { type: "inject_context", content: `note ${interruptions}`, requestedBy: "human" },
        { revisionId: `rev-${interruptions}`, now: new Date("2026-03-01T09:30:00.000Z") },
      );
      await goals.commit(revision.record, current.version, revision.events);
    }
    return goals.commit(record, expectedVersion, events, options);
  };
  return contended;
}

/**
 * The step log, except that just before the step's own put another attempt logs `racing(step)`
 * under the same number, so the step's put meets a first writer.
 */
function racedStepLog(real: StepLog, racing: (step: StepRecord) => StepRecord): StepLog {
  return {
    listRecentSteps: (goalId, limit) => real.listRecentSteps(goalId, limit),
    putStep: async (step) => {
      await real.putStep(racing(step));
      return real.putStep(step);
    },
  };
}

/**
 * The step log, except that `late` is logged right before Act reads the log (its second read in a
 * goal's first iteration; the first is verify's): a late Act of another run logging meanwhile.
 */
function loggingAtActsRead(real: StepLog, late: StepRecord): StepLog {
  let reads = 0;
  return {
    putStep: (step) => real.putStep(step),
    listRecentSteps: async (goalId, limit) => {
      reads += 1;
      if (reads === 2) await real.putStep(late);
      return real.listRecentSteps(goalId, limit);
    },
  };
}

/** A step a run's late Act logged: one workspace_write of `path` that really ran. */
function lateStepOf(goalId: string, at: { runId: string; iteration: number; path: string }): StepRecord {
  const toolUseId = `late-${at.runId}-${at.iteration}`;
  return {
    goalId,
    step: 1,
    runId: at.runId,
    iteration: at.iteration,
    turn: {
      modelId: "scripted:late",
      stopReason: "tool_use",
      content: [
        { toolUse: { toolUseId, name: "workspace_write", input: { path: at.path, content: "late" } } },
      ],
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    },
    toolResults: [{ toolUseId, status: "success", content: [{ text: "written" }] }],
    observations: { artifacts: [], toolResults: [] },
    at: "2026-03-01T09:00:00.000Z",
  };
}

/** `step` as a racing attempt logged it: the same turn, its calls answered with errors. */
function failedBy(step: StepRecord): StepRecord {
  return {
    ...step,
    toolResults: step.toolResults.map((result) => ({
      ...result,
      status: "error" as const,
      content: [{ text: "RacingAttemptFailed: the other attempt's call failed" }],
    })),
  };
}

describe("ReAct steps under concurrent writers", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });

  afterAll(async () => {
    await table?.stop();
  });

  function ports(goals: GoalStore, model: ScriptedModel) {
    return new ReactLoopDriver(table, model).ports(goals);
  }

  it("re-reads and re-applies its change when another writer got in first, keeping both writes", async () => {
    // Prepare
    const goal = await createGoal(table);
    const model = new ScriptedModel({ reason: [writes("out/haiku.md", "autumn")] });
    const loaded = await loadGoal(ports(table.adapters.goals, model), goal);
    const goals = contendedStore(table.adapters.goals, 2);

    // Act
    const answer = await verifyAndReason(ports(goals, model), SETTINGS, loaded);

    // Assess
    expect(answer.next).toBe("verify");
    expect(goals.interruptions).toBe(2);
    expect(model.requests).toHaveLength(1);
    const stored = await table.adapters.goals.getGoal(goal.goalId);
    expect(stored?.record.usage.modelCalls).toBe(1);
    expect(stored?.record.inbox.map((revision) => revision.revisionId)).toEqual(["rev-1", "rev-2"]);
  });

  it("commits the step a racing attempt logged first, never its own, when both acted on the turn", async () => {
    // Prepare
    const goal = await createGoal(table);
    const model = new ScriptedModel({ reason: [writes("out/haiku.md", "autumn")] });
    const loaded = await loadGoal(ports(table.adapters.goals, model), goal);
    const stepLog = racedStepLog(table.adapters.stepLog, failedBy);
    const loop = new ReactLoopDriver(table, model);

    // Act
    const answer = await verifyAndReason(
      { ...ports(table.adapters.goals, model), stepLog },
      SETTINGS,
      loaded,
    );

    // Assess
    expect(answer).toMatchObject({ iteration: 1, next: "verify" });
    const [logged] = await table.adapters.stepLog.listRecentSteps(goal.goalId, 1);
    expect(logged?.toolResults.map((result) => result.status)).toEqual(["error"]);
    const called = await loop.eventsOf(goal.goalId, "tool.called");
    expect(called.map((event) => (event as { status?: string }).status)).toEqual(["error"]);
    expect(await loop.eventsOf(goal.goalId, "tool.error")).toHaveLength(1);
  });

  it("counts a late step another run logged in this iteration's slot, and discards this turn unrun", async () => {
    // Prepare: the previous run's last Act logs step 1 after this run read the log, before it acts
    const goal = await createGoal(table);
    const model = new ScriptedModel({ reason: [writes("out/haiku.md", "autumn"), says("done")] });
    const loaded = await loadGoal(ports(table.adapters.goals, model), goal);
    const late = lateStepOf(goal.goalId, { runId: "r0", iteration: 3, path: "notes/late.md" });
    const stepLog = loggingAtActsRead(table.adapters.stepLog, late);
    const loop = new ReactLoopDriver(table, model);

    // Act
    const acted = await verifyAndReason({ ...ports(table.adapters.goals, model), stepLog }, SETTINGS, loaded);
    const next = await verifyAndReason(ports(table.adapters.goals, model), SETTINGS, acted);

    // Assess
    expect(acted).toMatchObject({ iteration: 1, next: "verify" });
    const [first] = await table.adapters.stepLog.listRecentSteps(goal.goalId, 2);
    expect(first).toMatchObject({ step: 1, runId: "r0", iteration: 3 });
    expect(await table.adapters.workspace.readFile(goal.goalId, "out/haiku.md")).toBeUndefined();
    expect(await loop.eventsOf(goal.goalId, "turn.discarded")).toMatchObject([
      { iteration: 0, step: 1, loggedBy: { runId: "r0", iteration: 3 } },
    ]);
    expect(next.next).not.toBe("failed");
    expect((await loop.goal(goal.goalId)).steps).toBe(1);
  });

  it("fails with StepLogConflictError when a step is logged beyond the one not verified yet", async () => {
    // Prepare
    const goal = await createGoal(table);
    const model = new ScriptedModel({ reason: [writes("out/haiku.md", "autumn")] });
    const loaded = await loadGoal(ports(table.adapters.goals, model), goal);
    const beyond = { ...lateStepOf(goal.goalId, { runId: "r0", iteration: 3, path: "a.md" }), step: 2 };
    const stepLog = loggingAtActsRead(table.adapters.stepLog, beyond);

    // Act
    const attempt = verifyAndReason({ ...ports(table.adapters.goals, model), stepLog }, SETTINGS, loaded);

    // Assess
    await expect(attempt).rejects.toMatchObject({
      name: "StepLogConflictError",
      message: expect.stringContaining("is logged beyond step 1"),
    });
  });

  it("runs no tool again when a duplicate invocation reasoned and acted on the turn before its commit", async () => {
    // Prepare: iteration 0 as usual; in iteration 1 a duplicate of the invocation (a retry while the
    // first still runs) does the whole iteration between the first one's checkpoint and its commit.
    const goal = await createGoal(table);
    const model = new ScriptedModel({
      reason: [
        calls("workspace_write", { path: "notes.md", content: "plan" }),
        writes("out/haiku.md", "autumn"),
      ],
    });
    const real = table.adapters.goals;
    const position = await verifyAndReason(
      ports(real, model),
      SETTINGS,
      await loadGoal(ports(real, model), goal),
    );
    const duplicateAnswers: unknown[] = [];
    const goals: GoalStore = Object.create(real);
    goals.commit = async (record, expectedVersion, events, options) => {
      if (duplicateAnswers.length === 0) {
        duplicateAnswers.push(await verifyAndReason(ports(real, model), SETTINGS, position));
      }
      return real.commit(record, expectedVersion, events, options);
    };
    const own = ports(goals, model);
    let ownToolRuns = 0;
    const tools: ToolRunner = Object.create(own.tools);
    tools.run = (...args) => {
      ownToolRuns += 1;
      return own.tools.run(...args);
    };

    // Act
    const answer = await verifyAndReason({ ...own, tools }, SETTINGS, position);

    // Assess
    expect(answer).toMatchObject({ iteration: 2, next: "verify" });
    expect(duplicateAnswers).toEqual([answer]);
    expect(ownToolRuns).toBe(0);
    expect(model.requestsFor("reason")).toHaveLength(2);
    expect(await table.adapters.stepLog.listRecentSteps(goal.goalId, 5)).toHaveLength(2);
    const stored = await real.getGoal(goal.goalId);
    expect(stored?.record.usage.modelCalls).toBe(2);
    expect(stored?.record.loop).toMatchObject({ iteration: 1, phase: "acted" });
  });

  it("gives up after two re-tries and throws ConcurrentModificationError for the state machine to retry", async () => {
    // Prepare
    const goal = await createGoal(table);
    // The retry applies the three revisions the interruptions queued, one reconcile call each.
    const model = new ScriptedModel({
      reason: [writes("out/haiku.md", "autumn")],
      reconcile: [says("{}"), says("{}"), says("{}")],
    });
    const loaded = await loadGoal(ports(table.adapters.goals, model), goal);
    const goals = contendedStore(table.adapters.goals, 3);

    // Act
    const attempt = verifyAndReason(ports(goals, model), SETTINGS, loaded);

    // Assess
    await expect(attempt).rejects.toMatchObject({ name: "ConcurrentModificationError" });
    const stored = await table.adapters.goals.getGoal(goal.goalId);
    expect(stored?.record.usage.modelCalls).toBe(0);
    const retried = await verifyAndReason(ports(table.adapters.goals, model), SETTINGS, loaded);
    expect(retried.next).toBe("verify");
    expect(model.requestsFor("reason")).toHaveLength(1);
  });
});
