import { Logger } from "@aws-lambda-powertools/logger";
import { FATAL_MODEL_ERRORS } from "../../adapters/bedrock-errors";
import { createDocumentClient, createGoalStoreAdapters } from "../../adapters/goal-store-adapters";
import { recordFailure } from "../../core/loop/record-failure";
import { requiredEnv } from "../handler-environment";
import { FailurePayloadSchema } from "./state-payload";
import { stepHandler } from "./step-handler";

const logger = new Logger();
const { goals } = createGoalStoreAdapters({
  client: createDocumentClient(),
  tableName: requiredEnv("GOAL_TABLE_NAME"),
});

/**
 * Fatal model errors and invalid input or configuration: the stop reason says `fatal_error`.
 * Everything else (a transient error that used up its retries, a timeout, a Lambda or store failure)
 * is `infrastructure`, and a redrive may help.
 */
const FATAL_ERROR_NAMES: ReadonlySet<string> = new Set([
  ...FATAL_MODEL_ERRORS,
  "ValidationError",
  "UnknownModelPriceError",
]);

/** RecordFailure: the Catch path of every task marks the goal `failed` (see `recordFailure`). */
export const handler = stepHandler(logger, FailurePayloadSchema, async (payload) => {
  const { recorded } = await recordFailure(
    { goals, now: () => new Date() },
    { fatalErrorNames: FATAL_ERROR_NAMES },
    payload,
  );
  if (!recorded) logger.info("goal not marked failed: it is not running under this run");
  return { recorded };
});
