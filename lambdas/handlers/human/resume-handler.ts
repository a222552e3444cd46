import { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import { SFNClient } from "@aws-sdk/client-sfn";
import middy from "@middy/core";
import type { Context } from "aws-lambda";
import {
  createDocumentClient,
  createGoalStore,
  createStepLog,
  createWorkspace,
} from "../../adapters/goal-store-adapters";
import { deadlineScheduleFromEnv } from "../../adapters/scheduler/scheduler-deadlines";
import { sfnRunRedrive } from "../../adapters/step-functions/sfn-run-redrive";
import { sfnRunStarter } from "../../adapters/step-functions/sfn-run-starter";
import { sfnRunIsLive } from "../../adapters/step-functions/sfn-run-status";
import { sfnRunStopper } from "../../adapters/step-functions/sfn-run-stopper";
import { sfnTaskCallback } from "../../adapters/step-functions/sfn-task-callback";
import { ON_ABANDON, PatternSchema } from "../../core/goal/goal-spec";
import { runStateMachineArn } from "../../core/goal/runs-on";
import { parseOrThrow } from "../../core/goal/validation";
import { handleCancelRequested } from "../../core/human/handle-cancel";
import { handlePauseRequested } from "../../core/human/handle-pause";
import { handleResumeRequested } from "../../core/human/handle-resume";
import { handleRetryRequested } from "../../core/human/handle-retry";
import { handleRevisionRequested } from "../../core/human/handle-revision";
import { HumanInputEnvelopeSchema, humanInputEventFrom } from "../../core/human/human-input-events";
import { handleHumanInput } from "../../core/human/resume-handler";
import { DEADLINE_REACHED, DeadlineEnvelopeSchema, enforceDeadline } from "../../core/loop/gates/deadline";
import { reviveDeadRun } from "../../core/loop/reattach-goal";
import { compensateAbandoned } from "../../core/loop/revisions/abandon";
import { sequentialRunIds } from "../../core/loop/run-ids";
import { GOAL_ENDED, GoalEndedEnvelopeSchema, handleGoalEnded } from "../../core/loop/subgoals/goal-ended";
import type { VersionedGoal } from "../../core/ports/goal-store";
import { admitWaitingGoals } from "../../core/tenants/tenant-admission";
import { tenantLimitsReader } from "../../core/tenants/tenant-directory";
import * as z from "../../core/zod";
import { requiredEnv } from "../handler-environment";
import { compensatorsFromEnv } from "../loop/compensators-from-env";
import { tenantStoreFromEnv, tenantsSettingsFromEnv } from "../tenants-from-env";

const logger = new Logger();
const client = createDocumentClient();
const table = { client, tableName: requiredEnv("GOAL_TABLE_NAME") };
const goals = createGoalStore(table);
const workspace = createWorkspace(table);
const stepLog = createStepLog(table);
// No explicit endpoint: the SDK honours AWS_ENDPOINT_URL_SFN (the local runtime's Step Functions).
const sfn = new SFNClient({ region: process.env.AWS_REGION });
const callback = sfnTaskCallback(sfn);
const stateMachineArns = parseOrThrow(
  z.partialRecord(PatternSchema, z.string().check(z.minLength(1))),
  JSON.parse(requiredEnv("STATE_MACHINE_ARNS")),
  "STATE_MACHINE_ARNS",
);
const now = () => new Date();
const startRun = sfnRunStarter(sfn);
const revivePorts = { goals, now, runIsLive: sfnRunIsLive(sfn), startRun, stateMachineArns };
const reviveRun = (goalId: string) => reviveDeadRun(revivePorts, goalId);
const deadlines = deadlineScheduleFromEnv();
const onAbandon = parseOrThrow(z.enum(ON_ABANDON), process.env.ON_ABANDON ?? "keep", "ON_ABANDON");
const compensators = compensatorsFromEnv();
const sagaPorts = { goals, workspace, stepLog, now, ...(compensators === undefined ? {} : { compensators }) };
const cancel = handleCancelRequested.bind(null, {
  goals,
  stopRun: sfnRunStopper(sfn),
  stateMachineArns,
  now,
});
const tenantStore = tenantStoreFromEnv(client);
const admission = {
  goals,
  tenants: tenantStore,
  limits: tenantLimitsReader(tenantsSettingsFromEnv(), tenantStore),
  startRun: async ({ record }: VersionedGoal) => {
    // The version it was admitted on (pinned at intake), however long it waited for the slot.
    const stateMachineArn = runStateMachineArn(record, stateMachineArns);
    if (stateMachineArn === undefined) throw new Error(`pattern ${record.pattern} is not deployed`);
    await startRun({ stateMachineArn, goalId: record.goalId, runId: record.runId });
  },
  now,
};
const goalEndedPorts = {
  goals,
  callback,
  now,
  reviveRun,
  // A parent that ended takes its running children with it, as a cancel by the system.
  cancelGoal: (goalId: string, reason: string) =>
    cancel({ goalId, requestedBy: "goal-loops", reason, channel: "api", requestedAt: now().toISOString() }),
  // An abandoned plan's saga (ON_ABANDON, the configuration's compensation.onAbandon, unless its
  // GoalSpec says otherwise); the user tools' compensate functions load on the first one.
  compensateAbandoned: (goalId: string) => compensateAbandoned(sagaPorts, goalId, onAbandon),
  // An ended goal's slot goes to its tenant's next waiting goals (tenants.limits concurrentGoals).
  freeSlot: async (record: { tenantId: string; goalId: string }) => {
    await tenantStore.releaseSlots(record.tenantId, [record.goalId]);
    return admitWaitingGoals(admission, record.tenantId);
  },
};
const others = {
  revision: handleRevisionRequested.bind(null, { goals, now }),
  pause: handlePauseRequested.bind(null, { goals, now }),
  resume: handleResumeRequested.bind(null, {
    goals,
    startRun,
    stateMachineArns,
    ids: sequentialRunIds,
    now,
  }),
  retry: handleRetryRequested.bind(null, {
    ...revivePorts,
    ids: sequentialRunIds,
    redriveRun: sfnRunRedrive(sfn),
  }),
  cancel,
};

/**
 * The resume handler: the target of the bus rule for every human input (source `goal-loops.human`),
 * every goal's deadline (source `goal-loops.deadline`, from its schedule) and every goal that ended
 * with someone to tell (source `goal-loops.goals`). Matches an `Approval Decided` against the waiting
 * goal and answers its task token; hands revisions, pauses, resumes, retries and cancels to their own
 * handlers; ends what waits past a deadline; wakes a parent whose sub-goals ended and cancels the
 * sub-goals of a parent that ended. An error fails the asynchronous
 * invocation: Lambda retries it twice, then sends the event with the error to the bus's dead-letter
 * queue (the function's on-failure destination), whose alarm fires; everything it does is
 * idempotent, so a retry or a replay from the queue is safe. Logs ids, never the token.
 */
export const handler = middy<unknown, void, Error, Context>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async (raw) => {
    const deadline = DeadlineEnvelopeSchema.safeParse(raw);
    if (deadline.success) {
      logger.appendKeys({ goalId: deadline.data.detail.goalId, detailType: DEADLINE_REACHED });
      const outcome = await enforceDeadline({ goals, callback, now }, deadline.data.detail);
      logger.info("deadline handled", { outcome: outcome.outcome, reason: outcome.reason });
      return;
    }
    const ended = GoalEndedEnvelopeSchema.safeParse(raw);
    if (ended.success) {
      logger.appendKeys({ goalId: ended.data.detail.goalId, detailType: GOAL_ENDED });
      const outcome = await handleGoalEnded(goalEndedPorts, ended.data.detail);
      logger.info("goal end handled", { ...outcome });
      return;
    }
    const envelope = parseOrThrow(HumanInputEnvelopeSchema, raw, "EventBridge event");
    const event = humanInputEventFrom(envelope);
    logger.appendKeys({ goalId: event.detail.goalId, detailType: event.detailType });
    const ports = { goals, callback, now, reviveRun, ...(deadlines ? { deadlines } : {}) };
    const outcome = await handleHumanInput(ports, others, event);
    logger.info("human input handled", { outcome: outcome.outcome, reason: outcome.reason });
  });
