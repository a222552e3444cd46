import { BedrockModelClient } from "../lambdas/adapters/bedrock/bedrock-model-client";
import { createBedrockRuntimeClient } from "../lambdas/adapters/bedrock/bedrock-runtime-client";
import { DEFAULT_CONTEXT_SETTINGS } from "../lambdas/core/models/context/context-settings";
import type { ReasonSettings } from "../lambdas/core/patterns/react/verify-and-reason";
import { createGoal, ReactLoopDriver, SETTINGS, startGoalTable } from "../test/unit/loop/support";
import { FIXTURES, longGoalSpec } from "./fixtures";

/** The overhead goal's model, which the bench stack's fixture folder serves to both sides. */
const MODEL_ID = `scripted:${FIXTURES.overhead}`;

/**
 * The same core step functions as the Lambdas (LoadGoal, VerifyAndReason, which acts too,
 * ContinueAsNew) on the same DynamoDB (dynalite over HTTP), called in one process without Step
 * Functions, Lambda sandboxes or an API: the baseline of the orchestration overhead. Its model
 * calls are the local side's: the production Bedrock adapter and runtime client, over HTTP/2 to
 * the same local Bedrock endpoint (`bedrockRuntimeUrl`) and the same fixture, which checks cache
 * points and signs and checks reasoning blocks as it does for the Lambdas. So local ÷ in-process
 * compares what the runtime adds, not a model object against an HTTP call.
 * Returns the wall time of every iteration (reason + act), in ms.
 */
export async function runInProcess(
  iterations: number,
  contextBudgetTokens: number,
  bedrockRuntimeUrl: string,
): Promise<number[]> {
  // As the local runtime sets it for its functions: no EMF lines for the goal metrics (they would
  // cost the baseline time the Lambdas do not spend, and flood the bench's output).
  process.env.POWERTOOLS_METRICS_DISABLED = "true";
  const table = await startGoalTable();
  const client = createBedrockRuntimeClient({
    target: {
      endpoint: bedrockRuntimeUrl,
      region: "us-east-1",
      // What the local stack hands its sandboxes: the local endpoint checks no request signature.
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
    },
  });
  try {
    const settings: ReasonSettings = {
      ...SETTINGS,
      models: { heavyModelId: MODEL_ID, fastModelId: MODEL_ID },
      context: { ...DEFAULT_CONTEXT_SETTINGS, budgetTokens: contextBudgetTokens },
    };
    const loop = new ReactLoopDriver(table, new BedrockModelClient({ client }), settings);
    const goal = await createGoal(table, longGoalSpec(iterations, FIXTURES.overhead));
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
    client.destroy();
    await table.stop();
  }
}
