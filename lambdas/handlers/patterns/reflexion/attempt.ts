import { Logger } from "@aws-lambda-powertools/logger";
import { createModelClient } from "../../../adapters/bedrock/bedrock-model-client";
import { createDocumentClient, createGoalStoreAdapters } from "../../../adapters/goal-store-adapters";
import { runModelStep } from "../../../core/loop/capacity-wait";
import { attempt } from "../../../core/patterns/reflexion/attempt";
import { requiredEnv } from "../../handler-environment";
import { capacityGovernorFromEnv } from "../../loop/capacity-from-env";
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
const settings = loopSettingsFromEnv();
// The tools it offers, and runs at once when the turn needs no approval (Act runs approved ones).
const tools = toolRunnerFromEnv({ workspace, outbox });

/**
 * Attempt: the `attempt` call with every stored lesson, acted on unless a call is gated (see `attempt`).
 * A call the rest of the budget cannot pay for is not made: the goal waits for a limit decision.
 */
export const handler = stepHandler(logger, StatePayloadSchema, (payload) =>
  runModelStep({ goals, now }, payload, "attempt", () =>
    attempt({ goals, stepLog, model, capacity, tools, now }, settings, payload),
  ),
);
