import type { NewGoalEvent } from "../../core/goal/goal-event";
import type { GoalRecord } from "../../core/goal/goal-record";
import type { GoalStore } from "../../core/ports/goal-store";
import { type GoalMetrics, metricsOfChange, metricsOfDecision } from "./goal-metrics";

/**
 * `goals` publishing the goal metrics of what it stores: every committed change (goals started,
 * ended, paused; iterations; model usage) and every approval decided or expired (the wait). Only a
 * write that succeeded counts, and a metric that cannot be published never fails the write.
 *
 * A Proxy, as `withFaultInjection`: every other operation passes through untouched.
 */
export function withGoalMetrics<T extends GoalStore>(
  goals: T,
  metrics: GoalMetrics,
  now: () => Date = () => new Date(),
): T {
  const publishChange = (record: GoalRecord, events: readonly NewGoalEvent[]) =>
    publishQuietly(metrics, () => metricsOfChange(record, events));
  const overrides: Partial<GoalStore> = {
    async createGoal(record, events) {
      const created = await goals.createGoal(record, events);
      publishChange(created.record, events);
      return created;
    },
    async commit(record, expectedVersion, events, options) {
      const committed = await goals.commit(record, expectedVersion, events, options);
      publishChange(committed.record, events);
      return committed;
    },
    async decideApproval(approvalId, outcome) {
      const decided = await goals.decideApproval(approvalId, outcome);
      publishQuietly(metrics, () => metricsOfDecision(decided, now()));
      return decided;
    },
  };
  return new Proxy(goals, {
    get(target, property) {
      const override = typeof property === "string" ? overrides[property as keyof GoalStore] : undefined;
      if (override !== undefined) return override;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Metrics are an observer: a failure to compute or write one is logged, never thrown into the step. */
function publishQuietly(metrics: GoalMetrics, batches: () => ReturnType<typeof metricsOfChange>): void {
  try {
    metrics.publish(batches());
  } catch (error) {
    console.warn("goal metrics not published", error);
  }
}
