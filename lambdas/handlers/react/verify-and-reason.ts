import { Logger } from "@aws-lambda-powertools/logger";
import { BedrockModelClient } from "../../adapters/bedrock-model-client";
import { createBedrockRuntimeClient } from "../../adapters/bedrock-runtime-client";
import { createDocumentClient, createGoalStoreAdapters } from "../../adapters/goal-store-adapters";
import { DEFAULT_CONTEXT_SETTINGS } from "../../core/context";
import { verifyAndReason } from "../../core/react/verify-and-reason";
import { toolCallRisk } from "../../tools/built-in-tool-runner";
import { toolSpecs } from "../../tools/tool-registry";
import { loopSettingsFromEnv, positiveIntEnv, requiredEnv } from "../handler-environment";
import { stepHandler } from "../step-handler";
import { StatePayloadSchema } from "./state-payload";

const logger = new Logger();
const { goals, workspace, stepLog } = createGoalStoreAdapters({
  client: createDocumentClient(),
  tableName: requiredEnv("GOAL_TABLE_NAME"),
});
const model = new BedrockModelClient({ client: createBedrockRuntimeClient() });
const settings = {
  ...loopSettingsFromEnv(),
  context: {
    ...DEFAULT_CONTEXT_SETTINGS,
    budgetTokens: positiveIntEnv("CONTEXT_BUDGET_TOKENS", DEFAULT_CONTEXT_SETTINGS.budgetTokens),
  },
};
// Reasoning only offers tools; running them is Act's (which holds the outbox and HTTP settings).
const tools = { specsFor: toolSpecs, riskOf: toolCallRisk };

/** VerifyAndReason: verify the last step, decide, then the `reason` call (see `verifyAndReason`). */
export const handler = stepHandler(logger, StatePayloadSchema, (payload) =>
  verifyAndReason({ goals, workspace, stepLog, model, tools, now: () => new Date() }, settings, payload),
);
