import { DEFAULT_CONTEXT_SETTINGS } from "../lambdas/core/models/context/context-settings";
import type { ReasonSettings } from "../lambdas/core/patterns/react/verify-and-reason";
import type { ModelTurn } from "../lambdas/core/ports/model-client";
import {
  createGoal,
  ReactLoopDriver,
  type Scripted,
  ScriptedModel,
  SETTINGS,
  startGoalTable,
} from "../test/unit/loop/support";
import { longGoalFixture, longGoalSpec } from "./fixtures";

const MODEL_ID = "scripted:bench-in-process";
const USAGE = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

interface FixtureTurn {
  readonly text?: string;
  readonly toolUse?: { readonly name: string; readonly input: Record<string, string> };
}

function turnOf(turn: FixtureTurn, index: number): ModelTurn {
  return {
    modelId: MODEL_ID,
    stopReason: turn.toolUse ? "tool_use" : "end_turn",
    content: [
      ...(turn.text === undefined ? [] : [{ text: turn.text }]),
      ...(turn.toolUse ? [{ toolUse: { toolUseId: `tooluse_${index}`, ...turn.toolUse } }] : []),
    ],
    usage: USAGE,
  };
}

/**
 * The same core step functions as the Lambdas (LoadGoal, VerifyAndReason, which acts too, ContinueAsNew) on
 * the same DynamoDB (dynalite over HTTP) with the same fixture turns, called in one process without
 * Step Functions, Lambda sandboxes or an API: the baseline of the orchestration overhead.
 * Returns the wall time of every iteration (reason + act), in ms.
 */
export async function runInProcess(iterations: number, contextBudgetTokens: number): Promise<number[]> {
  const fixture = longGoalFixture(iterations);
  const script: Partial<Record<"reason" | "summarize", Scripted[]>> = {
    reason: fixture.reason.map(turnOf),
    summarize: fixture.summarize.map(turnOf),
  };
  const table = await startGoalTable();
  try {
    const settings: ReasonSettings = {
      ...SETTINGS,
      models: { heavyModelId: MODEL_ID, fastModelId: MODEL_ID },
      context: { ...DEFAULT_CONTEXT_SETTINGS, budgetTokens: contextBudgetTokens },
    };
    const loop = new ReactLoopDriver(table, new ScriptedModel(script), settings);
    const goal = await createGoal(table, { ...longGoalSpec(iterations), models: { default: MODEL_ID } });
    const times: number[] = [];
    let answer = await loop.load(goal.goalId, "r1");
    let started = performance.now();
    for (;;) {
      // VerifyAndReason or Act, routed as the state machine routes `next`.
      const step = loop.step(answer);
      if (step) {
        answer = await step;
        // A step that acted on the iteration's turn answers `verify` for the next one.
        if (answer.next === "verify") {
          const now = performance.now();
          times.push(now - started);
          started = now;
        }
      } else if (answer.next === "continue_as_new") {
        const next = await loop.continueAsNew(answer);
        if (!next) break;
        answer = await loop.load(goal.goalId, next.runId);
      } else break;
    }
    const final = await loop.goal(goal.goalId);
    if (final.status !== "completed") throw new Error(`in-process goal ended ${final.status}`);
    return times;
  } finally {
    await table.stop();
  }
}
