import { Logger } from "@aws-lambda-powertools/logger";
import { BedrockModelClient } from "../../../adapters/bedrock-model-client";
import { createBedrockRuntimeClient } from "../../../adapters/bedrock-runtime-client";
import { createDocumentClient, createGoalStoreAdapters } from "../../../adapters/goal-store-adapters";
import { plan } from "../../../core/patterns/plan-execute/plan";
import { toolSpecs } from "../../../tools/tool-registry";
import { requiredEnv } from "../../handler-environment";
import { StatePayloadSchema } from "../../loop/state-payload";
import { stepHandler } from "../../loop/step-handler";
import { planExecuteSettingsFromEnv } from "./settings";

const logger = new Logger();
const { goals } = createGoalStoreAdapters({
  client: createDocumentClient(),
  tableName: requiredEnv("GOAL_TABLE_NAME"),
});
const model = new BedrockModelClient({ client: createBedrockRuntimeClient() });
const settings = planExecuteSettingsFromEnv();
// The planner only reads the granted tools' specs: it plans with them and calls none.
const tools = { specsFor: toolSpecs };

/** Plan: the first plan or a replan with its strategy, validated with zod (see `plan`). */
export const handler = stepHandler(logger, StatePayloadSchema, (payload) =>
  plan({ goals, model, tools, now: () => new Date() }, settings, payload),
);
