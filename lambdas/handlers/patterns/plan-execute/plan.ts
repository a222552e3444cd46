import { Logger } from "@aws-lambda-powertools/logger";
import { createModelClient } from "../../../adapters/bedrock/bedrock-model-client";
import { createDocumentClient, createGoalStore } from "../../../adapters/goal-store-adapters";
import type { FrozenTool } from "../../../core/goal/frozen-tools";
import { runModelStep } from "../../../core/loop/capacity-wait";
import { plan } from "../../../core/patterns/plan-execute/plan";
import { offeredMcpTool } from "../../../tools/mcp-tool-spec";
import { BUILT_IN_TOOLS, createToolRegistry, toolSpecs } from "../../../tools/tool-registry";
import { requiredEnv } from "../../handler-environment";
import { capacityGovernorFromEnv } from "../../loop/capacity-from-env";
import { StatePayloadSchema } from "../../loop/state-payload";
import { stepHandler } from "../../loop/step-handler";
import { planExecuteSettingsFromEnv } from "./settings";

const logger = new Logger();
const now = () => new Date();
const client = createDocumentClient();
const goals = createGoalStore({
  client,
  tableName: requiredEnv("GOAL_TABLE_NAME"),
});
const model = createModelClient();
// Paces the model calls within models.quotas; a call without capacity waits (runModelStep).
const capacity = capacityGovernorFromEnv(client, now);
const settings = planExecuteSettingsFromEnv();
// The planner only reads the granted tools' specs (the goal's frozen MCP tools among them): it plans
// with them and calls none, so it bundles only their specs, not what checks and runs a call.
const tools = {
  specsFor: (granted: readonly string[], frozen: readonly FrozenTool[] = []) =>
    frozen.length === 0
      ? toolSpecs(granted)
      : createToolRegistry([...BUILT_IN_TOOLS, ...frozen.map(offeredMcpTool)]).toolSpecs(granted),
};

/**
 * Plan: the first plan or a replan with its strategy, validated with zod (see `plan`).
 * A call the rest of the budget cannot pay for is not made: the goal waits for a limit decision.
 */
export const handler = stepHandler(logger, StatePayloadSchema, (payload) =>
  runModelStep({ goals, now }, payload, "plan", () =>
    plan({ goals, model, capacity, tools, now }, settings, payload),
  ),
);
