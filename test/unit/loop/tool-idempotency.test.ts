import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyAndReason } from "../../../lambdas/core/patterns/react/verify-and-reason";
import type { StepLog } from "../../../lambdas/core/ports/step-log";
import { toolCallIdempotencyKey } from "../../../lambdas/core/ports/tool-runner";
import { notifyMessageId } from "../../../lambdas/tools/notify";
import {
  calls,
  createGoal,
  type GoalTable,
  ReactLoopDriver,
  reactSpec,
  ScriptedModel,
  SETTINGS,
  says,
  startGoalTable,
} from "./support";

/** Notify is pre-authorized, so the call runs without an approval gate, right after the reason call. */
const notifySpec = reactSpec({
  objective: "Tell ops the release is out",
  tools: ["notify"],
  approval: { preAuthorized: ["notify"] },
  successChecks: [
    {
      id: "told",
      description: "ops were notified",
      verify: { kind: "tool_result", tool: "notify", expect: { status: "success" } },
    },
  ],
});

/** The step log of a sandbox that dies after the tools ran and before the step was written. */
function crashingStepLog(real: StepLog): StepLog {
  return {
    listRecentSteps: (goalId, limit) => real.listRecentSteps(goalId, limit),
    putStep: async () => {
      throw new Error("sandbox crashed before the step was logged");
    },
  };
}

describe("idempotency keys on tool calls with side effects", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });
  afterAll(() => table.stop());

  it("sends one outbox message when a retried VerifyAndReason runs the notify call again", async () => {
    // Prepare
    const goal = await createGoal(table, notifySpec);
    const turn = calls("notify", { channel: "ops", message: "Release 1.2 is out" });
    const model = new ScriptedModel({ reason: [turn, says("done")] });
    const loop = new ReactLoopDriver(table, model);
    const loaded = await loop.load(goal.goalId);
    const { stepLog } = table.adapters;

    // Act: it reasons, commits, runs the call, then dies; the state machine's Retry runs it again.
    const crashed = verifyAndReason({ ...loop.ports(), stepLog: crashingStepLog(stepLog) }, SETTINGS, loaded);
    await expect(crashed).rejects.toThrow("sandbox crashed");
    const retried = await loop.verifyAndReason(loaded);
    const final = await loop.verifyAndReason(retried);

    // Assess
    const toolUse = turn.content.flatMap((block) => ("toolUse" in block ? [block.toolUse] : []))[0];
    const key = toolCallIdempotencyKey({
      goalId: goal.goalId,
      runId: "r1",
      iteration: loaded.iteration,
      toolUseId: toolUse?.toolUseId ?? "",
    });
    expect(retried).toMatchObject({ iteration: loaded.iteration + 1, next: "verify" });
    expect(await table.adapters.outbox.listMessages(goal.goalId)).toEqual([
      expect.objectContaining({
        messageId: notifyMessageId(key),
        channel: "ops",
        message: "Release 1.2 is out",
      }),
    ]);
    expect(final.next).toBe("completed");
    expect(model.requestsFor("reason")).toHaveLength(1);
  });

  it("sends a second message for a second call: the key is per call, not per step", async () => {
    // Prepare
    const goal = await createGoal(table, notifySpec);
    const first = calls("notify", { channel: "ops", message: "one" });
    const second = calls("notify", { channel: "ops", message: "two" });
    const twoCalls = { ...first, content: [...first.content, ...second.content.slice(1)] };
    const loop = new ReactLoopDriver(table, new ScriptedModel({ reason: [twoCalls, says("done")] }));

    // Act
    await loop.run(goal.goalId);

    // Assess
    const messages = await table.adapters.outbox.listMessages(goal.goalId);
    expect(messages.map((message) => message.message).sort()).toEqual(["one", "two"]);
    expect(new Set(messages.map((message) => message.messageId)).size).toBe(2);
  });
});
