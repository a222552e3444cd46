import type { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import middy from "@middy/core";
import type { Context } from "aws-lambda";
import { parseOrThrow } from "../../core/goal/validation";
import type * as z from "../../core/zod";

/** What every step's payload names: the goal and the run, put on every log line. */
interface RunKeys {
  readonly goalId: string;
  readonly runId: string;
}

/**
 * A Step Functions task handler: Powertools logger with the Lambda context, the payload parsed with
 * `schema` (a bad one is a ValidationError, never retried), `goalId` and `runId` on every log line,
 * and any error logged before it goes back to the state machine with its name intact.
 */
export function stepHandler<S extends z.core.$ZodType<RunKeys>, R>(
  logger: Logger,
  schema: S,
  step: (payload: z.output<S>) => Promise<R>,
) {
  return middy<unknown, R, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use({
      onError: (request) => {
        logger.error("step failed", request.error ?? "unknown error");
      },
    })
    .handler(async (event) => {
      const payload = parseOrThrow(schema, event, "state payload");
      logger.appendKeys({ goalId: payload.goalId, runId: payload.runId });
      const result = await step(payload);
      logger.info("step done", { result });
      return result;
    });
}
