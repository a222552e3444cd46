import { Logger } from "@aws-lambda-powertools/logger";
import { createModelClient } from "../../../adapters/bedrock/bedrock-model-client";
import {
  createDocumentClient,
  createGoalStore,
  createStepLog,
  createWorkspace,
} from "../../../adapters/goal-store-adapters";
import { runModelStep } from "../../../core/loop/capacity-wait";
import { reflect } from "../../../core/patterns/reflexion/reflect";
import { modelTiersFromEnv, requiredEnv } from "../../handler-environment";
import { capacityGovernorFromEnv } from "../../loop/capacity-from-env";
import { StatePayloadSchema } from "../../loop/state-payload";
import { stepHandler } from "../../loop/step-handler";

const logger = new Logger();
const now = () => new Date();
const client = createDocumentClient();
const table = { client, tableName: requiredEnv("GOAL_TABLE_NAME") };
const goals = createGoalStore(table);
const workspace = createWorkspace(table);
const stepLog = createStepLog(table);
const model = createModelClient();
// Paces the model calls within models.quotas; a call without capacity waits (runModelStep).
const capacity = capacityGovernorFromEnv(client, now);
const settings = { models: modelTiersFromEnv() };

/**
 * Reflect: draw a lesson from the failed attempt and store it on the goal (see `reflect`).
 * A call the rest of the budget cannot pay for is not made: the goal waits for a limit decision.
 */
export const handler = stepHandler(logger, StatePayloadSchema, (payload) =>
  runModelStep({ goals, now }, payload, "reflect", () =>
    reflect({ goals, workspace, stepLog, model, capacity, now }, settings, payload),
  ),
);
