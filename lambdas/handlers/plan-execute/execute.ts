import { Logger } from "@aws-lambda-powertools/logger";
import { BedrockModelClient } from "../../adapters/bedrock-model-client";
import { createBedrockRuntimeClient } from "../../adapters/bedrock-runtime-client";
import { createDocumentClient, createGoalStoreAdapters } from "../../adapters/goal-store-adapters";
import { execute } from "../../core/plan-execute/execute";
import { toolCallRisk } from "../../tools/built-in-tool-runner";
import { toolSpecs } from "../../tools/tool-registry";
import { requiredEnv } from "../handler-environment";
import { StatePayloadSchema } from "../react/state-payload";
import { stepHandler } from "../step-handler";
import { planExecuteSettingsFromEnv } from "./settings";

const logger = new Logger();
const { goals } = createGoalStoreAdapters({
  client: createDocumentClient(),
  tableName: requiredEnv("GOAL_TABLE_NAME"),
});
const model = new BedrockModelClient({ client: createBedrockRuntimeClient() });
const settings = planExecuteSettingsFromEnv();
// Executing only offers the step's tool; running it is the shared Act's (outbox, HTTP settings).
const tools = { specsFor: toolSpecs, riskOf: toolCallRisk };

/** Execute: the executor's turn for the next plan step, its tool calls gated (see `execute`). */
export const handler = stepHandler(logger, StatePayloadSchema, (payload) =>
  execute({ goals, model, tools, now: () => new Date() }, settings, payload),
);
