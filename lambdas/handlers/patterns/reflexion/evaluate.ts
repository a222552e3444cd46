import { Logger } from "@aws-lambda-powertools/logger";
import { createModelClient } from "../../../adapters/bedrock/bedrock-model-client";
import {
  createDocumentClient,
  createGoalStore,
  createStepLog,
  createWorkspace,
} from "../../../adapters/goal-store-adapters";
import { runModelStep } from "../../../core/loop/capacity-wait";
import { evaluate } from "../../../core/patterns/reflexion/evaluate";
import { requiredEnv } from "../../handler-environment";
import { capacityGovernorFromEnv } from "../../loop/capacity-from-env";
import { compensatorsFromEnv } from "../../loop/compensators-from-env";
import { loopSettingsFromEnv } from "../../loop/loop-settings-from-env";
import { StatePayloadSchema } from "../../loop/state-payload";
import { stepHandler } from "../../loop/step-handler";

const logger = new Logger();
const now = () => new Date();
const client = createDocumentClient();
const table = { client, tableName: requiredEnv("GOAL_TABLE_NAME") };
const goals = createGoalStore(table);
const workspace = createWorkspace(table);
const stepLog = createStepLog(table);
// Undoes a user tool's call for a corrective revision, when the tool has a compensate function.
const compensators = compensatorsFromEnv();
const model = createModelClient();
// Paces the model calls within models.quotas; a call without capacity waits (runModelStep).
const capacity = capacityGovernorFromEnv(client, now);
const settings = loopSettingsFromEnv();

/**
 * Evaluate: evaluate the last attempt against the success checks, then decide (see `evaluate`).
 * A call the rest of the budget cannot pay for is not made: the goal waits for a limit decision.
 */
export const handler = stepHandler(logger, StatePayloadSchema, (payload) =>
  runModelStep({ goals, now }, payload, "verify", () =>
    evaluate(
      {
        goals,
        workspace,
        stepLog,
        history: stepLog,
        model,
        capacity,
        now,
        ...(compensators ? { compensators } : {}),
      },
      settings,
      payload,
    ),
  ),
);
