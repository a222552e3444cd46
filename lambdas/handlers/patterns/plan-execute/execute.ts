import { Logger } from "@aws-lambda-powertools/logger";
import { createModelClient } from "../../../adapters/bedrock/bedrock-model-client";
import { createDocumentClient, createGoalStoreAdapters } from "../../../adapters/goal-store-adapters";
import { runModelStep } from "../../../core/loop/capacity-wait";
import { execute } from "../../../core/patterns/plan-execute/execute";
import { executeBatchStep } from "../../../core/patterns/plan-execute/execute-batch";
import * as z from "../../../core/zod";
import { requiredEnv } from "../../handler-environment";
import { capacityGovernorFromEnv } from "../../loop/capacity-from-env";
import { StatePayloadSchema } from "../../loop/state-payload";
import { stepHandler } from "../../loop/step-handler";
import { toolRunnerFromEnv } from "../../loop/tool-runner-from-env";
import { planExecuteSettingsFromEnv } from "./settings";

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
const settings = planExecuteSettingsFromEnv();
// The tools it offers, and runs at once when the turn needs no approval (Act runs approved ones).
const tools = toolRunnerFromEnv({ workspace, outbox });

/**
 * Execute's payload; a branch of the ExecuteBatch Map state adds the `stepId` whose turn it makes
 * (its ItemSelector), so one function serves both states.
 */
const ExecutePayloadSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.extend(StatePayloadSchema, {
    stepId: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
  }),
);

/**
 * Execute: the executor's turn for the next plan step, acted on unless a call is gated (see `execute`).
 * A call the rest of the budget cannot pay for is not made: the goal waits for a limit decision.
 * With a `stepId`, ExecuteBatchStep: one batch step's turn, made and counted, not acted on.
 */
export const handler = stepHandler(logger, ExecutePayloadSchema, ({ stepId, ...payload }) =>
  stepId === undefined
    ? runModelStep({ goals, now }, payload, "execute", () =>
        execute({ goals, stepLog, model, capacity, tools, now }, settings, payload),
      )
    : executeBatchStep({ goals, stepLog, model, capacity, tools, now }, settings, { ...payload, stepId }),
);
