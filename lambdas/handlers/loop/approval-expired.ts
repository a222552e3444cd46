import { Logger } from "@aws-lambda-powertools/logger";
import { createDocumentClient, createGoalStore } from "../../adapters/goal-store-adapters";
import { approvalExpired } from "../../core/loop/gates/approval-expired";
import { requiredEnv } from "../handler-environment";
import { StatePayloadSchema } from "./state-payload";
import { stepHandler } from "./step-handler";

const logger = new Logger();
const goals = createGoalStore({
  client: createDocumentClient(),
  tableName: requiredEnv("GOAL_TABLE_NAME"),
});

/** ApprovalExpired: AwaitApproval timed out; expire the approval and go on or terminate (see `approvalExpired`). */
export const handler = stepHandler(logger, StatePayloadSchema, (payload) =>
  approvalExpired({ goals, now: () => new Date() }, payload),
);
