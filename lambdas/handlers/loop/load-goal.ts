import { Logger } from "@aws-lambda-powertools/logger";
import { createDocumentClient, createGoalStore } from "../../adapters/goal-store-adapters";
import { loadGoal } from "../../core/loop/load-goal";
import { requiredEnv } from "../handler-environment";
import { LoadGoalPayloadSchema } from "./state-payload";
import { stepHandler } from "./step-handler";

const logger = new Logger();
const goals = createGoalStore({
  client: createDocumentClient(),
  tableName: requiredEnv("GOAL_TABLE_NAME"),
});

/** LoadGoal: the first state of a run (see `loadGoal`). */
export const handler = stepHandler(logger, LoadGoalPayloadSchema, (payload) =>
  loadGoal({ goals, now: () => new Date() }, payload),
);
