import { Logger } from "@aws-lambda-powertools/logger";
import { SFNClient } from "@aws-sdk/client-sfn";
import { createDocumentClient, createGoalStore } from "../../adapters/goal-store-adapters";
import { loadOnce } from "../../adapters/shared/load-once";
import { sfnRunStarter } from "../../adapters/step-functions/sfn-run-starter";
import { sfnRunIsLive } from "../../adapters/step-functions/sfn-run-status";
import { sfnTaskCallback } from "../../adapters/step-functions/sfn-task-callback";
import { sfnVersionDirectory } from "../../adapters/step-functions/sfn-version-directory";
import { PATTERNS } from "../../core/goal/goal-spec";
import { reviveDeadRun } from "../../core/loop/reattach-goal";
import { awaitSubgoals } from "../../core/loop/subgoals/await-subgoals";
import { requiredEnv } from "../handler-environment";
import { AwaitSubgoalsPayloadSchema } from "./state-payload";
import { stepHandler } from "./step-handler";
import { stateMachineArnsFromEnv, subgoalSettingsFromEnv } from "./subgoal-settings-from-env";

const logger = new Logger();
const goals = createGoalStore({
  client: createDocumentClient(),
  tableName: requiredEnv("GOAL_TABLE_NAME"),
});
// No explicit endpoint: the SDK honours AWS_ENDPOINT_URL_SFN (the local runtime's Step Functions).
const sfn = new SFNClient({ region: process.env.AWS_REGION });
const stateMachineArns = stateMachineArnsFromEnv();
const patterns = PATTERNS.filter((pattern) => stateMachineArns[pattern] !== undefined);
const settings = subgoalSettingsFromEnv(patterns);
const now = () => new Date();
const startRun = sfnRunStarter(sfn);
const revivePorts = { goals, now, runIsLive: sfnRunIsLive(sfn), startRun, stateMachineArns };
// Versions are immutable and the parent's deploy's ones never move: only `live` (a fallback) is cached briefly.
const versions = sfnVersionDirectory(sfn, stateMachineArns);

/** A child's deadline schedule (EventBridge Scheduler), loaded for the first child that has a deadline. */
const deadlineSchedule = loadOnce(async () =>
  (await import("../../adapters/scheduler/scheduler-deadlines")).deadlineScheduleFromEnv(),
);

/**
 * AwaitSubgoals' Lambda (`.waitForTaskToken`): start the sub-goals the turn asked for and park the
 * parent until they end (see `awaitSubgoals`). The answer is logged without the token.
 */
export const handler = stepHandler(logger, AwaitSubgoalsPayloadSchema, (payload) =>
  awaitSubgoals(
    {
      goals,
      callback: sfnTaskCallback(sfn),
      now,
      startRun,
      stateMachineArns,
      versions,
      reviveRun: (goalId) => reviveDeadRun(revivePorts, goalId),
      deadlines: {
        schedule: {
          set: async (goalId, deadline) => (await deadlineSchedule())?.set(goalId, deadline),
        },
        onError: (error) => logger.error("a sub-goal's deadline schedule was not set", { error }),
      },
    },
    settings,
    payload,
  ),
);
