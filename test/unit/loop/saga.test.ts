import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goalIdFromBytes } from "../../../lambdas/core/goal/goal-ids";
import type { GoalRecord } from "../../../lambdas/core/goal/goal-record";
import { compensateAbandoned } from "../../../lambdas/core/loop/revisions/abandon";
import type { ToolCompensators } from "../../../lambdas/core/loop/revisions/compensate";
import { runSaga, type SagaPorts, startSaga } from "../../../lambdas/core/loop/revisions/saga";
import type { ToolResultBlock, ToolUseBlock } from "../../../lambdas/core/ports/model-client";
import type { StepRecord } from "../../../lambdas/core/ports/step-log";
import { aGoalRecord } from "../../support/goal-record-builder";
import { type ServedGoalTable, startGoalTable, steppingClock } from "./support";

let table: ServedGoalTable;
let counter = 0;

beforeAll(async () => {
  table = await startGoalTable();
});
afterAll(async () => {
  await table?.stop();
});

function newGoalId(): string {
  counter += 1;
  return goalIdFromBytes(Buffer.alloc(16, counter));
}

/** Logs one step whose calls ran as `results` say, and writes its files as the tool would have. */
async function logStep(
  goalId: string,
  step: number,
  calls: readonly { call: ToolUseBlock; result: ToolResultBlock; reads?: boolean }[],
): Promise<void> {
  const record: StepRecord = {
    goalId,
    step,
    runId: "r1",
    iteration: step - 1,
    turn: {
      modelId: "scripted:saga",
      stopReason: "tool_use",
      content: calls.map(({ call }) => ({ toolUse: call })),
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    },
    toolResults: calls.map(({ result }) => result),
    observations: {
      artifacts: [],
      toolResults: calls.map(({ call, result, reads }) => ({
        tool: call.name,
        status: result.status,
        sha256: "0".repeat(64),
        ...(reads ? { reads: true } : {}),
      })),
    },
    at: new Date(Date.UTC(2026, 0, 1, 0, step)).toISOString(),
  };
  await table.adapters.stepLog.putStep(record);
}

/** A workspace_write as Act runs it: the file written, the call and its result as logged. */
async function written(goalId: string, toolUseId: string, path: string, content: string) {
  const writtenBy = { runId: "r1", iteration: 0, toolUseId };
  const { file, changed } = await table.adapters.workspace.writeFile({ goalId, path, content, writtenBy });
  const call: ToolUseBlock = { toolUseId, name: "workspace_write", input: { path, content } };
  const result: ToolResultBlock = {
    toolUseId,
    status: "success",
    content: [{ json: { path, sha256: file.sha256, size: file.size, version: file.version, changed } }],
  };
  return { call, result };
}

function other(toolUseId: string, name: string, reads = false) {
  const call: ToolUseBlock = { toolUseId, name, input: { any: "thing" } };
  const result: ToolResultBlock = { toolUseId, status: "success", content: [{ json: { ok: true } }] };
  return { call, result, reads };
}

async function storedGoal(record: GoalRecord) {
  await table.adapters.goals.createGoal(record, []);
  const loaded = await table.adapters.goals.getGoal(record.goalId);
  if (!loaded) throw new Error("goal not stored");
  return loaded;
}

function ports(compensators?: ToolCompensators): SagaPorts {
  const { goals, workspace, stepLog } = table.adapters;
  return { goals, workspace, stepLog, now: steppingClock(), ...(compensators ? { compensators } : {}) };
}

describe("runSaga", () => {
  it("undoes calls newest first: restores each write's predecessor, deletes created files, names what it cannot undo", async () => {
    // Prepare: step 1 creates a.md; step 2 rewrites it and creates b.md; step 3 notifies and reads
    const goalId = newGoalId();
    await logStep(goalId, 1, [await written(goalId, "w1", "a.md", "one")]);
    await logStep(goalId, 2, [
      await written(goalId, "w2", "a.md", "two"),
      await written(goalId, "w3", "b.md", "bee"),
    ]);
    await logStep(goalId, 3, [other("n1", "notify"), other("r1", "workspace_read", true)]);
    const loaded = await storedGoal(aGoalRecord({ goalId, steps: 3 }));
    const started = await table.adapters.goals.commit(
      ...commitArgs(
        loaded,
        startSaga(loaded.record, { sagaId: "s1", trigger: "corrective", fromStep: 2, toStep: 3 }, new Date()),
      ),
    );

    // Act
    const done = await runSaga(ports(), started, { mayChange: () => true });

    // Assess
    expect(await table.adapters.workspace.listFiles(goalId)).toEqual([
      expect.objectContaining({ path: "a.md", version: 3 }),
    ]);
    expect((await table.adapters.workspace.readFile(goalId, "a.md"))?.content).toBe("one");
    expect(done.record.saga).toMatchObject({
      status: "completed",
      processed: 4,
      undone: 2,
      notCompensable: [{ step: 3, tool: "notify", toolUseId: "n1" }],
      failed: [],
    });
    expect(done.record.compensatedSteps).toEqual([{ fromStep: 2, toStep: 3 }]);
    const { items } = await table.adapters.goals.listEvents(goalId, {});
    expect(
      items
        .filter((event) => event.type === "compensation.step")
        .map((event) => [event.toolUseId, event.action]),
    ).toEqual([
      ["r1", "nothing_to_undo"],
      ["n1", "not_compensable"],
      ["w3", "deleted"],
      ["w2", "restored"],
    ]);
  });

  it("leaves a file that something else changed since, and says so", async () => {
    // Prepare: step 1 writes x.md; someone else rewrites it afterwards
    const goalId = newGoalId();
    await logStep(goalId, 1, [await written(goalId, "w1", "x.md", "mine")]);
    await table.adapters.workspace.writeFile({
      goalId,
      path: "x.md",
      content: "theirs",
      writtenBy: { runId: "r9", iteration: 0, toolUseId: "elsewhere" },
    });
    const loaded = await storedGoal(aGoalRecord({ goalId, steps: 1 }));
    const started = await table.adapters.goals.commit(
      ...commitArgs(
        loaded,
        startSaga(loaded.record, { sagaId: "s1", trigger: "corrective", fromStep: 1, toStep: 1 }, new Date()),
      ),
    );

    // Act
    const done = await runSaga(ports(), started, { mayChange: () => true });

    // Assess
    expect((await table.adapters.workspace.readFile(goalId, "x.md"))?.content).toBe("theirs");
    expect(done.record.saga?.failed).toEqual([expect.objectContaining({ toolUseId: "w1", step: 1 })]);
    expect(done.record.saga?.failed[0]?.reason).toContain("the file changed after that write");
  });

  it("asks a Lambda tool's compensate function once per call, with a key of its own", async () => {
    // Prepare
    const goalId = newGoalId();
    await logStep(goalId, 1, [other("p1", "set_priority"), other("p2", "set_priority")]);
    const asked: string[] = [];
    const compensators: ToolCompensators = {
      has: (tool) => tool === "set_priority",
      async compensate(request) {
        asked.push(`${request.toolUseId}:${request.idempotencyKey}`);
        return { ok: true, value: { undone: request.toolUseId } };
      },
    };
    const loaded = await storedGoal(aGoalRecord({ goalId, steps: 1 }));
    const started = await table.adapters.goals.commit(
      ...commitArgs(
        loaded,
        startSaga(loaded.record, { sagaId: "s1", trigger: "corrective", fromStep: 1, toStep: 1 }, new Date()),
      ),
    );

    // Act
    const done = await runSaga(ports(compensators), started, { mayChange: () => true });

    // Assess: last call first, each with a distinct key
    expect(asked.map((entry) => entry.split(":")[0])).toEqual(["p2", "p1"]);
    expect(new Set(asked.map((entry) => entry.split(":")[1])).size).toBe(2);
    expect(done.record.saga?.undone).toBe(2);
  });
});

describe("compensateAbandoned", () => {
  it("undoes a cancelled plan's writes when its onAbandon says so, and leaves them when it says keep", async () => {
    // Prepare
    const keepId = newGoalId();
    const compensateId = newGoalId();
    for (const goalId of [keepId, compensateId]) {
      await logStep(goalId, 1, [await written(goalId, `w-${goalId}`, "plan.md", "a plan")]);
    }
    const cancelled = (goalId: string, onAbandon: "keep" | "compensate") => {
      const base = aGoalRecord({ goalId, steps: 1 });
      return aGoalRecord({
        goalId,
        steps: 1,
        pattern: "plan_execute",
        status: "cancelled",
        activeTask: null,
        spec: { ...base.spec, onAbandon },
      });
    };
    await storedGoal(cancelled(keepId, "keep"));
    await storedGoal(cancelled(compensateId, "compensate"));

    // Act
    const kept = await compensateAbandoned(ports(), keepId, "compensate");
    const compensated = await compensateAbandoned(ports(), compensateId, "keep");
    const again = await compensateAbandoned(ports(), compensateId, "keep");

    // Assess: the GoalSpec's onAbandon wins over the deployment's, and a second run does nothing more
    expect(kept).toEqual({ outcome: "ignored", reason: "onAbandon is keep" });
    expect(await table.adapters.workspace.listFiles(keepId)).toHaveLength(1);
    expect(compensated).toEqual({ outcome: "compensated", sagaId: "saga-abandoned", undone: 1 });
    expect(await table.adapters.workspace.listFiles(compensateId)).toEqual([]);
    expect(again).toEqual(compensated);
  });
});

function commitArgs(
  loaded: { record: GoalRecord; version: number },
  change: { record: GoalRecord; events: Parameters<typeof table.adapters.goals.commit>[2] } | undefined,
): Parameters<typeof table.adapters.goals.commit> {
  if (!change) throw new Error("no change");
  return [change.record, loaded.version, change.events];
}
