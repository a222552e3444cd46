import { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import middy from "@middy/core";
import type { Context } from "aws-lambda";
import { createDocumentClient, createGoalStore } from "../../adapters/goal-store-adapters";
import { createPowertoolsGoalMetrics } from "../../adapters/metrics/powertools-goal-metrics";
import { listEnv, requiredEnv } from "../handler-environment";
import { measurePendingApprovals, type PendingApprovalsMeasure } from "./measure-pending-approvals";

const logger = new Logger();
const metrics = createPowertoolsGoalMetrics();
const goals = createGoalStore({
  client: createDocumentClient(),
  tableName: requiredEnv("GOAL_TABLE_NAME"),
  metrics,
});
const tenantIds = listEnv("APPROVAL_TENANT_IDS");

/** PendingApprovalsProbe: run every few minutes by a schedule (see `measurePendingApprovals`). */
export const handler = middy<unknown, PendingApprovalsMeasure, Error, Context>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async () => {
    const measure = await measurePendingApprovals({ goals, metrics, tenantIds, now: () => new Date() });
    logger.info("pending approvals measured", { ...measure, tenants: tenantIds.length });
    return measure;
  });
