import { parentPort, workerData } from "node:worker_threads";
import * as z from "zod";
import { BedrockModelClient } from "../lambdas/adapters/bedrock/bedrock-model-client";
import { createBedrockRuntimeClient } from "../lambdas/adapters/bedrock/bedrock-runtime-client";
import { DEFAULT_CONTEXT_SETTINGS } from "../lambdas/core/models/context/context-settings";
import type { ReasonSettings } from "../lambdas/core/patterns/react/verify-and-reason";
import { createGoal, ReactLoopDriver, SETTINGS, startGoalTable } from "../test/unit/loop/support";
import { FIXTURES, longGoalSpec } from "./fixtures";

/**
 * The in-process baseline's steps, in a worker thread of the bench (in-process.ts starts it): the
 * core step functions of the Lambdas called one after another, no Step Functions, Lambda host or API.
 */
const OptionsSchema = z.object({
  dynamodbEndpoint: z.string(),
  bedrockRuntimeUrl: z.string(),
  contextBudgetTokens: z.number().int().positive(),
});
const RequestSchema = z.object({ type: z.literal("run"), iterations: z.number().int().positive() });

/** The overhead goal's model, which the bench stack's fixture folder serves to both sides. */
const MODEL_ID = `scripted:${FIXTURES.overhead}`;

const options = OptionsSchema.parse(workerData);
const port = parentPort;
if (port === null) throw new Error("in-process-steps.ts runs as a worker thread (in-process.ts)");

// The table on the main thread's dynalite, as the sandboxes' tables are on the stack's.
const table = await startGoalTable(async () => ({
  endpoint: options.dynamodbEndpoint,
  stop: async () => undefined,
}));
const client = createBedrockRuntimeClient({
  target: {
    endpoint: options.bedrockRuntimeUrl,
    region: "us-east-1",
    // What the local stack hands its sandboxes: the local endpoint checks no request signature.
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  },
});
const settings: ReasonSettings = {
  ...SETTINGS,
  models: { heavyModelId: MODEL_ID, fastModelId: MODEL_ID },
  context: { ...DEFAULT_CONTEXT_SETTINGS, budgetTokens: options.contextBudgetTokens },
};
// One driver for every goal: its code stays compiled between goals, as a warm sandbox's does.
const loop = new ReactLoopDriver(table, new BedrockModelClient({ client }), settings);

/** One goal of `iterations`, routed as the state machine routes `next`; each iteration's wall time. */
async function runGoal(iterations: number): Promise<number[]> {
  const goal = await createGoal(table, longGoalSpec(iterations, FIXTURES.overhead));
  const times: number[] = [];
  let answer = await loop.load(goal.goalId, "r1");
  let started = performance.now();
  for (;;) {
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
}

port.on("message", (raw: unknown) => {
  const request = RequestSchema.parse(raw);
  runGoal(request.iterations).then(
    (times) => port.postMessage({ type: "times", times }),
    (error: unknown) => port.postMessage({ type: "error", message: String(error) }),
  );
});
port.postMessage({ type: "ready" });
