import { Logger } from "@aws-lambda-powertools/logger";
import { createDocumentClient, createGoalStoreAdapters } from "../../adapters/goal-store-adapters";
import { act } from "../../core/loop/act";
import { DEFAULT_TOOL_NAMES } from "../../tools/default-tools";
import { requiredEnv } from "../handler-environment";
import { StatePayloadSchema } from "./state-payload";
import { stepHandler } from "./step-handler";
import { toolRunnerFromEnv } from "./tool-runner-from-env";

const logger = new Logger();
const { goals, workspace, stepLog, outbox } = createGoalStoreAdapters({
  client: createDocumentClient(),
  tableName: requiredEnv("GOAL_TABLE_NAME"),
});
const tools = toolRunnerFromEnv({ workspace, outbox });
const settings = { defaultTools: DEFAULT_TOOL_NAMES };

/** Act: run the reasoned tool calls and log the step (see `act`). */
export const handler = stepHandler(logger, StatePayloadSchema, (payload) =>
  act({ goals, stepLog, tools, now: () => new Date() }, settings, payload),
);
