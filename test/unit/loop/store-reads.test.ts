import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoDbGoalStore } from "../../../lambdas/adapters/dynamodb/dynamodb-goal-store";
import { verifyAndReason } from "../../../lambdas/core/patterns/react/verify-and-reason";
import type { GoalStore } from "../../../lambdas/core/ports/goal-store";
import type { StepLog } from "../../../lambdas/core/ports/step-log";
import type { ToolRunner } from "../../../lambdas/core/ports/tool-runner";
import { documentClientFor, dynamoClientFor } from "../../support/dynamo-backends";
import { storedEventSeqs } from "../../support/stored-events";
import { within as withinMs } from "../../support/within";
import {
  calls,
  createGoal,
  ReactLoopDriver,
  ScriptedModel,
  SETTINGS,
  type ServedGoalTable,
  startGoalTable,
  writes,
} from "./support";

/** How long a read waits for the one it should overlap before the test calls them sequential. */
const OVERLAP_WAIT_MS = 5_000;
/** How long a whole step may take before the test calls it hung (generous: a loaded 2-core machine). */
const STEP_WAIT_MS = 15_000;

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

/** `promise`, or a rejection naming `what` when it hangs. */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  return withinMs(promise, what, STEP_WAIT_MS);
}

describe("VerifyAndReason's store requests per iteration", () => {
  let table: ServedGoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });

  afterAll(async () => {
    await table?.stop();
  });

  /**
   * A new goal loaded into run r1 whose one reason turn writes the haiku, and a DynamoDB client of
   * the test's own on its table, for a store whose requests a middleware holds.
   */
  async function haikuGoalWithOwnClient() {
    const goal = await createGoal(table);
    const loop = new ReactLoopDriver(
      table,
      new ScriptedModel({ reason: [writes("out/haiku.md", "autumn")] }),
    );
    const loaded = await loop.load(goal.goalId);
    return { goal, loop, loaded, raw: dynamoClientFor(table.endpoint) };
  }

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

  it("puts the reason commit's events while the tools run, and answers once every event is stored", async () => {
    // Prepare: a store whose first event batch waits until a tool runs.
    const { goal, loop, loaded, raw } = await haikuGoalWithOwnClient();
    const documents = documentClientFor(raw);
    const firstBatch = overlapGate("the reason commit's event batch");
    let batches = 0;
    let unfinishedBatches = 0;
    let holding = false;
    raw.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== "BatchWriteItemCommand") return next(args);
        unfinishedBatches += 1;
        try {
          if (++batches === 1) {
            holding = true;
            await firstBatch.awaitOverlap().finally(() => {
              holding = false;
            });
          }
          return await next(args);
        } finally {
          unfinishedBatches -= 1;
        }
      },
      { step: "initialize", name: "holdFirstEventBatch" },
    );
    const goals = new DynamoDbGoalStore({ client: documents, tableName: table.tableName });
    const ports = loop.ports(goals);
    const tools: ToolRunner = Object.create(ports.tools);
    let heldWhenToolRan = false;
    tools.run = (...args) => {
      heldWhenToolRan = holding;
      firstBatch.started();
      return ports.tools.run(...args);
    };

    // Act
    let answered: { answer: Awaited<ReturnType<typeof verifyAndReason>>; unfinishedAtAnswer: number };
    try {
      answered = await within(
        verifyAndReason({ ...ports, tools }, SETTINGS, loaded).then((answer) => ({
          answer,
          unfinishedAtAnswer: unfinishedBatches,
        })),
        "VerifyAndReason",
      );
    } finally {
      firstBatch.started();
    }

    // Assess: the batch was still held when the tool ran, and none was unfinished at the answer.
    try {
      expect(answered).toMatchObject({ answer: { iteration: 1, next: "verify" }, unfinishedAtAnswer: 0 });
      expect(heldWhenToolRan).toBe(true);
      const { lastEventSeq } = await loop.goal(goal.goalId);
      const stored = await storedEventSeqs(documents, table.tableName, goal.goalId);
      expect(stored).toHaveLength(lastEventSeq);
    } finally {
      raw.destroy();
    }
  });

  it("fails a step whose tools threw only after the reason commit's events are stored", async () => {
    // Prepare: the first event batch is held until the tool runner has failed.
    const { loop, loaded, raw } = await haikuGoalWithOwnClient();
    const toolFailed = overlapGate("the failing tool");
    let batchStored = false;
    raw.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== "BatchWriteItemCommand") return next(args);
        await toolFailed.awaitOverlap();
        const output = await next(args);
        batchStored = true;
        return output;
      },
      { step: "initialize", name: "holdEventBatches" },
    );
    const goals = new DynamoDbGoalStore({ client: documentClientFor(raw), tableName: table.tableName });
    const ports = loop.ports(goals);
    const tools: ToolRunner = Object.create(ports.tools);
    tools.run = async () => {
      // After the throw has gone up the step: a step that does not wait for the batch answers first.
      setImmediate(toolFailed.started);
      throw new Error("the tool host went away");
    };

    // Act
    const failure = await within(
      verifyAndReason({ ...ports, tools }, SETTINGS, loaded).catch((error: unknown) => ({
        error,
        batchStored,
      })),
      "VerifyAndReason",
    ).finally(() => raw.destroy());

    // Assess
    expect(failure).toMatchObject({ error: { message: "the tool host went away" }, batchStored: true });
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
