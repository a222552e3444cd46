import { Logger } from "@aws-lambda-powertools/logger";
import { FATAL_MODEL_ERRORS, FIXTURE_EXHAUSTED } from "../../adapters/bedrock/bedrock-errors";
import { createDocumentClient, createGoalStore } from "../../adapters/goal-store-adapters";
import { GoalLoopsError } from "../../core/goal/errors";
import { failureMessage, recordFailure } from "../../core/loop/record-failure";
import type { StepResult } from "../../core/loop/step-result";
import { requiredEnv } from "../handler-environment";
import { FailurePayloadSchema } from "./state-payload";
import { stepHandler } from "./step-handler";

const logger = new Logger();
const goals = createGoalStore({
  client: createDocumentClient(),
  tableName: requiredEnv("GOAL_TABLE_NAME"),
});

/**
 * Fatal model errors and invalid input or configuration: the stop reason says `fatal_error`.
 * Everything else (a transient error that used up its retries, a timeout, a Lambda or store failure)
 * is `infrastructure`, and a retry may help.
 */
const FATAL_ERROR_NAMES: ReadonlySet<string> = new Set([
  ...FATAL_MODEL_ERRORS,
  "ValidationError",
  "UnknownModelPriceError",
]);

/**
 * A fatal model error ends the goal `terminated` (DESIGN §3); a bad configuration leaves it `failed`,
 * and so does a local fixture that ran out of turns (`FixtureExhausted`): extend it, then retry.
 */
const TERMINATING_ERROR_NAMES: ReadonlySet<string> = new Set(
  FATAL_MODEL_ERRORS.filter((name) => name !== FIXTURE_EXHAUSTED),
);

/**
 * The execution fails with it after RecordFailure marked the goal `failed`: the run stops in
 * RecordFailure, so a redrive (`POST /goals/{goalId}/retry`) re-runs exactly that state, which hands
 * the goal back to the loop. Never retried by the state machine.
 */
export class GoalFailedError extends GoalLoopsError {
  override readonly name = "GoalFailed";
}

/**
 * RecordFailure: the Catch path of every task (see `recordFailure`). A failed goal fails the
 * execution (redrivable); a terminated or foreign one ends it through NextAction; a redriven run
 * goes back into the loop.
 */
export const handler = stepHandler(logger, FailurePayloadSchema, async (payload): Promise<StepResult> => {
  const result = await recordFailure(
    { goals, now: () => new Date() },
    { fatalErrorNames: FATAL_ERROR_NAMES, terminatingErrorNames: TERMINATING_ERROR_NAMES },
    payload,
  );
  const position = { goalId: payload.goalId, runId: payload.runId, iteration: payload.iteration };
  switch (result.outcome) {
    case "redriven":
      logger.info("redriven run goes back into the loop", { next: result.next.next });
      return result.next;
    case "terminated":
      return { ...position, next: "terminated" };
    case "ignored":
      logger.info("goal not marked failed: it is not running under this run");
      return { ...position, next: "stop" };
    case "failed":
      throw new GoalFailedError(`${payload.error.Error}: ${failureMessage(payload.error)}`.slice(0, 2000));
  }
});
