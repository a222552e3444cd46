import { Logger } from "@aws-lambda-powertools/logger";
import { createModelClient } from "../../../adapters/bedrock/bedrock-model-client";
import { createDocumentClient, createGoalStoreAdapters } from "../../../adapters/goal-store-adapters";
import { stopAtCostLimit } from "../../../core/loop/cost-limit";
import { reflect } from "../../../core/patterns/reflexion/reflect";
import { modelTiersFromEnv, requiredEnv } from "../../handler-environment";
import { StatePayloadSchema } from "../../loop/state-payload";
import { stepHandler } from "../../loop/step-handler";

const logger = new Logger();
const now = () => new Date();
const { goals, workspace, stepLog } = createGoalStoreAdapters({
  client: createDocumentClient(),
  tableName: requiredEnv("GOAL_TABLE_NAME"),
});
const model = createModelClient();
const settings = { models: modelTiersFromEnv() };

/**
 * Reflect: draw a lesson from the failed attempt and store it on the goal (see `reflect`).
 * A call the rest of the budget cannot pay for is not made: the goal waits for a limit decision.
 */
export const handler = stepHandler(logger, StatePayloadSchema, (payload) =>
  stopAtCostLimit({ goals, now }, payload, () =>
    reflect({ goals, workspace, stepLog, model, now }, settings, payload),
  ),
);
