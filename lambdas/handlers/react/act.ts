import { Logger } from "@aws-lambda-powertools/logger";
import { createDocumentClient, createGoalStoreAdapters } from "../../adapters/goal-store-adapters";
import { act } from "../../core/react/act";
import { createBuiltInToolRunner, DEFAULT_TOOL_OUTPUT_INLINE_BYTES } from "../../tools/built-in-tool-runner";
import { DEFAULT_TOOL_NAMES } from "../../tools/tool-registry";
import { listEnv, positiveIntEnv, requiredEnv } from "../handler-environment";
import { stepHandler } from "../step-handler";
import { StatePayloadSchema } from "./state-payload";

const logger = new Logger();
const { goals, workspace, stepLog, outbox } = createGoalStoreAdapters({
  client: createDocumentClient(),
  tableName: requiredEnv("GOAL_TABLE_NAME"),
});
const tools = createBuiltInToolRunner({
  workspace,
  outbox,
  allowedHosts: listEnv("HTTP_ALLOWED_HOSTS"),
  inlineLimitBytes: positiveIntEnv("TOOL_OUTPUT_INLINE_BYTES", DEFAULT_TOOL_OUTPUT_INLINE_BYTES),
});
const settings = { defaultTools: DEFAULT_TOOL_NAMES };

/** Act: run the reasoned tool calls and log the step (see `act`). */
export const handler = stepHandler(logger, StatePayloadSchema, (payload) =>
  act({ goals, stepLog, tools, now: () => new Date() }, settings, payload),
);
