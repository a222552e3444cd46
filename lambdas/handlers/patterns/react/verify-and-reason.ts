import { Logger } from "@aws-lambda-powertools/logger";
import { createModelClient } from "../../../adapters/bedrock/bedrock-model-client";
import { createDocumentClient, createGoalStoreAdapters } from "../../../adapters/goal-store-adapters";
import { runModelStep } from "../../../core/loop/capacity-wait";
import { DEFAULT_CONTEXT_SETTINGS } from "../../../core/models/context/context-settings";
import { verifyAndReason } from "../../../core/patterns/react/verify-and-reason";
import { listEnv, positiveIntEnv, requiredEnv } from "../../handler-environment";
import { capacityGovernorFromEnv } from "../../loop/capacity-from-env";
import { compensatorsFromEnv } from "../../loop/compensators-from-env";
import { loopSettingsFromEnv } from "../../loop/loop-settings-from-env";
import { StatePayloadSchema } from "../../loop/state-payload";
import { stepHandler } from "../../loop/step-handler";
import { toolRunnerFromEnv } from "../../loop/tool-runner-from-env";

const logger = new Logger();
const now = () => new Date();
const client = createDocumentClient();
const { goals, workspace, stepLog, outbox } = createGoalStoreAdapters({
  client,
  tableName: requiredEnv("GOAL_TABLE_NAME"),
});
const model = createModelClient();
// Paces the model calls within models.quotas; a call without capacity waits (runModelStep).
const capacity = capacityGovernorFromEnv(client, now);
const settings = {
  ...loopSettingsFromEnv(),
  context: {
    ...DEFAULT_CONTEXT_SETTINGS,
    budgetTokens: positiveIntEnv("CONTEXT_BUDGET_TOKENS", DEFAULT_CONTEXT_SETTINGS.budgetTokens),
    // The bench lays out a scripted model's prompts with cache points, as a Claude model's (unset: the defaults).
    cacheModels: listEnv("CONTEXT_CACHE_MODELS").length
      ? listEnv("CONTEXT_CACHE_MODELS")
      : DEFAULT_CONTEXT_SETTINGS.cacheModels,
  },
};
// The tools it offers, and runs at once when the turn needs no approval (Act runs approved ones).
const tools = toolRunnerFromEnv({ workspace, outbox });
const compensators = compensatorsFromEnv();

/**
 * VerifyAndReason: verify the last step, decide, make the `reason` call, and act on it when no call
 * needs an approval (see `verifyAndReason`).
 * A call the rest of the budget cannot pay for is not made: the goal waits for a limit decision.
 */
export const handler = stepHandler(logger, StatePayloadSchema, (payload) =>
  runModelStep({ goals, now }, payload, "verify", () =>
    verifyAndReason(
      {
        goals,
        workspace,
        stepLog,
        history: stepLog,
        model,
        capacity,
        tools,
        now,
        ...(compensators ? { compensators } : {}),
      },
      settings,
      payload,
    ),
  ),
);
