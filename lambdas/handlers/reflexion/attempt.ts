import { Logger } from "@aws-lambda-powertools/logger";
import { BedrockModelClient } from "../../adapters/bedrock-model-client";
import { createBedrockRuntimeClient } from "../../adapters/bedrock-runtime-client";
import { createDocumentClient, createGoalStoreAdapters } from "../../adapters/goal-store-adapters";
import { attempt } from "../../core/reflexion/attempt";
import { toolCallRisk } from "../../tools/built-in-tool-runner";
import { DEFAULT_TOOL_NAMES, toolSpecs } from "../../tools/tool-registry";
import { modelTiersFromEnv, requiredEnv } from "../handler-environment";
import { StatePayloadSchema } from "../react/state-payload";
import { stepHandler } from "../step-handler";

const logger = new Logger();
const { goals } = createGoalStoreAdapters({
  client: createDocumentClient(),
  tableName: requiredEnv("GOAL_TABLE_NAME"),
});
const model = new BedrockModelClient({ client: createBedrockRuntimeClient() });
const settings = { models: modelTiersFromEnv(), defaultTools: DEFAULT_TOOL_NAMES };
// Attempting only offers tools; running them is the shared Act's (which holds the outbox and HTTP settings).
const tools = { specsFor: toolSpecs, riskOf: toolCallRisk };

/** Attempt: the `attempt` call with every stored lesson, its tool calls gated (see `attempt`). */
export const handler = stepHandler(logger, StatePayloadSchema, (payload) =>
  attempt({ goals, model, tools, now: () => new Date() }, settings, payload),
);
