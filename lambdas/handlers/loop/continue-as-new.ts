import { Logger } from "@aws-lambda-powertools/logger";
import { SFNClient } from "@aws-sdk/client-sfn";
import { createDocumentClient, createGoalStore } from "../../adapters/goal-store-adapters";
import { sfnRunStarter } from "../../adapters/step-functions/sfn-run-starter";
import { continueAsNewStep } from "../../core/loop/continue-as-new";
import { sequentialRunIds } from "../../core/loop/run-ids";
import type { StepResult } from "../../core/loop/step-result";
import { requiredEnv } from "../handler-environment";
import { ContinueAsNewPayloadSchema } from "./state-payload";
import { stepHandler } from "./step-handler";

const logger = new Logger();
const goals = createGoalStore({
  client: createDocumentClient(),
  tableName: requiredEnv("GOAL_TABLE_NAME"),
});
// No explicit endpoint: the SDK honours AWS_ENDPOINT_URL_SFN (the local runtime's Step Functions).
const startRun = sfnRunStarter(new SFNClient({ region: process.env.AWS_REGION }));

/**
 * ContinueAsNew: hands the goal to a new run, then starts that run's execution on the version the goal
 * runs on (`NewRun.stateMachineArn`),
 * named `${goalId}-${runId}`; a name already taken means an earlier attempt started it, which is fine.
 * Answers `continued` with the new run's id (the old execution's output says where the goal went).
 */
export const handler = stepHandler(
  logger,
  ContinueAsNewPayloadSchema,
  async (payload): Promise<StepResult> => {
    const run = await continueAsNewStep({ goals, ids: sequentialRunIds, now: () => new Date() }, payload);
    if (!run)
      return { goalId: payload.goalId, runId: payload.runId, iteration: payload.iteration, next: "stop" };
    await startRun({ stateMachineArn: run.stateMachineArn, goalId: run.goalId, runId: run.runId });
    logger.info("new run started", {
      newRunId: run.runId,
      executionName: run.executionName,
      stateMachineArn: run.stateMachineArn,
    });
    return { goalId: run.goalId, runId: run.runId, iteration: 0, next: "continued" };
  },
);
