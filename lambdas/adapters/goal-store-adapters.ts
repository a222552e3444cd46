import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { DynamoDbGoalStore } from "./dynamodb/dynamodb-goal-store";
import { DynamoDbOutbox } from "./dynamodb/dynamodb-outbox";
import { DynamoDbStepLog } from "./dynamodb/dynamodb-step-log";
import { DynamoDbWorkspace } from "./dynamodb/dynamodb-workspace";
import { withLargeItemOffload } from "./dynamodb/encoding/large-item-offload";
import { withItemRetention } from "./dynamodb/item-retention";
import { goalEndedPublisherFromEnv, withGoalEndedSignals } from "./eventbridge/goal-ended-signals";
import type { GoalMetrics } from "./metrics/goal-metrics";
import { withGoalMetrics } from "./metrics/metered-goal-store";
import { createPowertoolsGoalMetrics } from "./metrics/powertools-goal-metrics";
import {
  type FaultSpec,
  faultFromEnvironment,
  withCompensationFaultInjection,
  withFaultInjection,
  withNotifyFaultInjection,
} from "./shared/fault-injection";
import {
  goalRetentionDaysFromEnv,
  INLINE_ONLY_FILE_MAX_BYTES,
  type PayloadEnvironment,
  payloadSettingsFromEnv,
} from "./shared/payload-settings";
import { withSubsegments } from "./shared/xray-subsegments";

export interface GoalStoreAdapters {
  readonly goals: DynamoDbGoalStore;
  readonly workspace: DynamoDbWorkspace;
  readonly stepLog: DynamoDbStepLog;
  readonly outbox: DynamoDbOutbox;
}

/**
 * Every adapter of the goal table, sharing one client. Handlers call this once at module scope.
 * The goal store carries the chaos-testing fault of GOAL_LOOPS_FAULT_INJECTION when it is set (see
 * fault-injection.ts; a bad value fails here, at init). Every adapter's calls are X-Ray
 * subsegments, and the goal store publishes the goal metrics of what it commits (goal-metrics.ts)
 * and, with GOAL_EVENT_BUS_NAME, a `Goal Ended` event for each goal it ends that someone waits on
 * (goal-ended-signals.ts).
 */
export function createGoalStoreAdapters(options: GoalTableOptions): GoalStoreAdapters {
  const maxFileBytes =
    options.maxFileBytes ?? payloadSettingsFromEnv()?.maxBytes ?? INLINE_ONLY_FILE_MAX_BYTES;
  const fault = faultFromEnvironment();
  return {
    goals: createGoalStore(options, fault),
    workspace: createWorkspace({ ...options, maxFileBytes }, fault),
    stepLog: createStepLog(options),
    outbox: createOutbox(options, fault),
  };
}

export interface GoalTableOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** @default () => new Date() */
  readonly now?: () => Date;
  /**
   * The largest workspace file (and so tool result) accepted, in bytes.
   * @default PAYLOAD_MAX_BYTES with a payload bucket (PAYLOAD_BUCKET_NAME), else what one item holds
   */
  readonly maxFileBytes?: number;
  /** @default the Powertools EMF metrics of this function's environment */
  readonly metrics?: GoalMetrics;
}

/**
 * The goal store alone, as createGoalStoreAdapters builds it (fault injection, `Goal Ended`
 * signals, metrics, X-Ray). A function that needs neither the workspace nor the step log builds
 * its store with this (and `createOutbox`), so that its bundle carries neither adapter.
 */
export function createGoalStore(
  options: GoalTableOptions,
  fault: FaultSpec | undefined = faultFromEnvironment(),
): DynamoDbGoalStore {
  const publishGoalEnded = goalEndedPublisherFromEnv();
  const store = withFaultInjection(new DynamoDbGoalStore(options), fault);
  // Every function that may end a goal has the bus: its commits announce the goals they end.
  const goals = publishGoalEnded === undefined ? store : withGoalEndedSignals(store, publishGoalEnded);
  return observedGoalStore(goals, options.metrics);
}

/** The workspace alone, as createGoalStoreAdapters builds it (see `createGoalStore`). */
export function createWorkspace(
  options: GoalTableOptions,
  fault: FaultSpec | undefined = faultFromEnvironment(),
): DynamoDbWorkspace {
  const maxFileBytes =
    options.maxFileBytes ?? payloadSettingsFromEnv()?.maxBytes ?? INLINE_ONLY_FILE_MAX_BYTES;
  return withSubsegments(
    withCompensationFaultInjection(new DynamoDbWorkspace({ ...options, maxFileBytes }), fault),
    "Workspace",
  );
}

/** The step log alone, as createGoalStoreAdapters builds it (see `createGoalStore`). */
export function createStepLog(options: GoalTableOptions): DynamoDbStepLog {
  return withSubsegments(new DynamoDbStepLog(options), "StepLog");
}

/** The outbox alone, as createGoalStoreAdapters builds it (see `createGoalStore`). */
export function createOutbox(
  options: GoalTableOptions,
  fault: FaultSpec | undefined = faultFromEnvironment(),
): DynamoDbOutbox {
  return withSubsegments(withNotifyFaultInjection(new DynamoDbOutbox(options), fault), "Outbox");
}

/**
 * A goal store as every function deploys it: its calls traced as X-Ray subsegments, and the goal
 * metrics of what it writes published (for the doors, which build their store themselves).
 */
export function observedGoalStore<T extends DynamoDbGoalStore>(
  goals: T,
  metrics: GoalMetrics = createPowertoolsGoalMetrics(),
): T {
  return withSubsegments(withGoalMetrics(goals, metrics), "GoalStore");
}

/**
 * The document client for a handler's module scope. No explicit endpoint: the SDK honours
 * `AWS_ENDPOINT_URL_DYNAMODB` by itself, which is how the local runtime's DynamoDB is reached.
 * The adapters write plain JSON copies and need no marshalling option; dropping `undefined` is a
 * guard for anyone else who puts through this client. The SDK keeps its default retries: a
 * throttled item write is retried in milliseconds, far cheaper than failing and redoing the step.
 *
 * With a payload bucket (PAYLOAD_BUCKET_NAME, set by the GoalTable construct), items over the
 * inline limit keep their large values in it; its S3 client is loaded only when an item needs it.
 */
export function createDocumentClient(
  payloads: PayloadEnvironment | undefined = payloadSettingsFromEnv(),
  retentionDays: number | undefined = goalRetentionDaysFromEnv(),
): DynamoDBDocumentClient {
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: process.env.AWS_REGION }), {
    marshallOptions: { removeUndefinedValues: true },
  });
  if (retentionDays !== undefined) withItemRetention(client, { days: retentionDays });
  if (payloads === undefined) return client;
  return withLargeItemOffload(client, {
    inlineMaxBytes: payloads.inlineMaxBytes,
    payloads: async () => (await import("./s3/s3-payload-store")).createS3PayloadStore(payloads.bucketName),
    // Bodies outlive their items by PAYLOAD_RETENTION_GRACE_DAYS: a body not put within a day is
    // put again with the item that points at it.
    ...(retentionDays === undefined ? {} : { refreshAfterMs: BODY_REFRESH_MS }),
  });
}

/** How old a body this client put may be before an item pointing at it puts it again (retention on). */
const BODY_REFRESH_MS = 24 * 60 * 60 * 1000;
