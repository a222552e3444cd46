import type { NewGoalEvent } from "../../core/goal/goal-event";
import type { GoalRecord } from "../../core/goal/goal-record";
import type { Approval } from "../../core/ports/goal-store";

/**
 * The operational metrics of goal-loops (docs/operations.md): what the goals, their model calls and
 * their approvals did, read from what the store commits. The names and dimensions are a contract
 * with the alarms and the dashboard of the `Operations` construct.
 */
export const GOAL_METRICS = {
  goalsStarted: "GoalsStarted",
  goalsCompleted: "GoalsCompleted",
  goalsPaused: "GoalsPaused",
  goalsTerminated: "GoalsTerminated",
  goalsFailed: "GoalsFailed",
  goalsCancelled: "GoalsCancelled",
  iterations: "Iterations",
  inputTokens: "InputTokens",
  outputTokens: "OutputTokens",
  cacheReadTokens: "CacheReadTokens",
  cacheWriteTokens: "CacheWriteTokens",
  costUsd: "CostUsd",
  approvalWaitSeconds: "ApprovalWaitSeconds",
  oldestPendingApprovalAgeSeconds: "OldestPendingApprovalAgeSeconds",
  capacityWaits: "CapacityWaits",
  /** Days since an owned secret's value last changed, per `Secret` (its `secrets.<key>`), published monthly. */
  secretAgeDays: "SecretAgeDays",
} as const;
export type GoalMetricName = (typeof GOAL_METRICS)[keyof typeof GOAL_METRICS];

/** The namespace the metrics go to unless the deployment names another (`operations.metricsNamespace`). */
export const DEFAULT_METRICS_NAMESPACE = "GoalLoops";

/** The dimension names, as alarms and dashboards select them. */
export const METRIC_DIMENSIONS = {
  pattern: "Pattern",
  role: "Role",
  model: "Model",
  outcome: "Outcome",
  /** Why a call waited for capacity: `quota` (the governor's pace), `throttled` (Bedrock refused), `contention`. */
  reason: "Reason",
  /** The `secrets.<key>` of the configuration an owned secret's age is published under. */
  secret: "Secret",
} as const;

export type MetricUnitName = "Count" | "Seconds" | "None";
export type Dimensions = Readonly<Record<string, string>>;

/**
 * Values published together under the same dimension sets. Each set is one aggregation CloudWatch
 * keeps; an empty set is the total over the deployment (the spend alarm's CostUsd).
 */
export interface MetricBatch {
  readonly dimensionSets: readonly Dimensions[];
  readonly values: readonly {
    readonly name: GoalMetricName;
    readonly unit: MetricUnitName;
    readonly value: number;
  }[];
}

/** Where metrics go: CloudWatch through EMF when deployed, nowhere (or a test's list) otherwise. */
export interface GoalMetrics {
  publish(batches: readonly MetricBatch[]): void;
}

/** Metrics that go nowhere. */
export const NO_METRICS: GoalMetrics = { publish: () => undefined };

/** A goal's final (or pausing) status event and the count it adds to. */
const STATUS_EVENTS: Readonly<Record<string, GoalMetricName>> = {
  "goal.created": GOAL_METRICS.goalsStarted,
  "goal.completed": GOAL_METRICS.goalsCompleted,
  "goal.paused": GOAL_METRICS.goalsPaused,
  "goal.terminated": GOAL_METRICS.goalsTerminated,
  "goal.failed": GOAL_METRICS.goalsFailed,
  "goal.cancelled": GOAL_METRICS.goalsCancelled,
};

const CYCLE_EVENTS = new Set(["progress", "no_progress"]);

/**
 * The metrics of one committed change: its status events and ended iterations per pattern, and each
 * model call's tokens and cost per role and model (and in total). Read from committed events, so a
 * retried step that commits nothing new counts nothing twice, and a model call counts once, when
 * its usage is committed (the loop marker keeps a reused checkpoint from committing it again).
 */
export function metricsOfChange(record: GoalRecord, events: readonly NewGoalEvent[]): MetricBatch[] {
  const perPattern = events.flatMap((event) => {
    const status = STATUS_EVENTS[event.type];
    if (status !== undefined) return [{ name: status, unit: "Count" as const, value: 1 }];
    return endsIteration(record, event)
      ? [{ name: GOAL_METRICS.iterations, unit: "Count" as const, value: 1 }]
      : [];
  });
  const batches: MetricBatch[] =
    perPattern.length === 0
      ? []
      : [{ dimensionSets: [{ [METRIC_DIMENSIONS.pattern]: record.pattern }], values: perPattern }];
  for (const event of events) {
    if (event.type === "model.usage") batches.push(usageBatch(event));
    if (event.type === "capacity.waiting") batches.push(capacityWaitBatch(event));
  }
  return batches;
}

/** One call that had to wait for model capacity, by why (and by model, for the dashboard). */
function capacityWaitBatch(event: NewGoalEvent): MetricBatch {
  const reason = typeof event.reason === "string" ? event.reason : "unknown";
  const model = typeof event.model === "string" ? event.model : "unknown";
  return {
    dimensionSets: [{ [METRIC_DIMENSIONS.reason]: reason }, { [METRIC_DIMENSIONS.model]: model }],
    values: [{ name: GOAL_METRICS.capacityWaits, unit: "Count", value: 1 }],
  };
}

/**
 * Whether the event closes a verify cycle (one iteration). A verify cycle's `progress` or
 * `no_progress` event is stamped like the record's `lastCycle`; a human's answer on an approval
 * check also says `progress` but records no cycle.
 */
function endsIteration(record: GoalRecord, event: NewGoalEvent): boolean {
  return CYCLE_EVENTS.has(event.type) && record.lastCycle?.at === event.at;
}

function usageBatch(event: NewGoalEvent): MetricBatch {
  const count = (field: string): number => (typeof event[field] === "number" ? event[field] : 0);
  const role = typeof event.role === "string" ? event.role : "unknown";
  const model = typeof event.modelId === "string" ? event.modelId : "unknown";
  return {
    dimensionSets: [{}, { [METRIC_DIMENSIONS.role]: role, [METRIC_DIMENSIONS.model]: model }],
    values: [
      { name: GOAL_METRICS.inputTokens, unit: "Count", value: count("inputTokens") },
      { name: GOAL_METRICS.outputTokens, unit: "Count", value: count("outputTokens") },
      { name: GOAL_METRICS.cacheReadTokens, unit: "Count", value: count("cacheReadTokens") },
      { name: GOAL_METRICS.cacheWriteTokens, unit: "Count", value: count("cacheWriteTokens") },
      { name: GOAL_METRICS.costUsd, unit: "None", value: count("costUsd") },
    ],
  };
}

/**
 * How long a human took: from the request to the decision, or to its expiry (outcome `expired`). A
 * superseded approval waited for nobody (the goal was revised, cancelled or reached its deadline).
 */
export function metricsOfDecision(approval: Approval, now: Date): MetricBatch[] {
  if (approval.status === "pending" || approval.status === "superseded") return [];
  const endedAt = approval.decision?.decidedAt ?? now.toISOString();
  const seconds = Math.max(0, (Date.parse(endedAt) - Date.parse(approval.requestedAt)) / 1000);
  return [
    {
      dimensionSets: [{ [METRIC_DIMENSIONS.outcome]: approval.status }],
      values: [{ name: GOAL_METRICS.approvalWaitSeconds, unit: "Seconds", value: seconds }],
    },
  ];
}
