import { afterEach, describe, expect, it, vi } from "vitest";
import {
  GOAL_METRICS,
  type MetricBatch,
  metricsOfChange,
  metricsOfDecision,
} from "../../../lambdas/adapters/metrics/goal-metrics";
import { withGoalMetrics } from "../../../lambdas/adapters/metrics/metered-goal-store";
import { createPowertoolsGoalMetrics } from "../../../lambdas/adapters/metrics/powertools-goal-metrics";
import { goalEvent } from "../../../lambdas/core/goal/goal-change";
import { fail, pause } from "../../../lambdas/core/goal/goal-lifecycle";
import { recordModelUsage } from "../../../lambdas/core/models/model-prices";
import type { GoalStore } from "../../../lambdas/core/ports/goal-store";
import { aGoalRecord } from "../../support/goal-record-builder";
import { anApproval } from "../../support/goal-store-builders";

const NOW = new Date("2026-01-01T00:10:00.000Z");

function recording() {
  const published: MetricBatch[] = [];
  return { published, metrics: { publish: (batches: readonly MetricBatch[]) => published.push(...batches) } };
}

describe("metricsOfChange", () => {
  it("counts a goal's status events per pattern", () => {
    // Prepare
    const record = aGoalRecord({ pattern: "plan_execute" });
    const paused = pause(
      record,
      { kind: "no_progress", detail: "maxNoProgressCycles", message: "stuck" },
      NOW,
    );

    // Act
    const batches = metricsOfChange(paused.record, paused.events);

    // Assess
    expect(batches).toEqual([
      {
        dimensionSets: [{ Pattern: "plan_execute" }],
        values: [{ name: GOAL_METRICS.goalsPaused, unit: "Count", value: 1 }],
      },
    ]);
    const failed = fail(record, { kind: "infrastructure", detail: "Lambda.Unknown", message: "boom" }, NOW);
    expect(metricsOfChange(failed.record, failed.events)[0]?.values[0]?.name).toBe(GOAL_METRICS.goalsFailed);
  });

  it("counts a verify cycle as an iteration, but not a human's answer on an approval check", () => {
    // Prepare: the cycle's event is stamped like the record's lastCycle; the check answer's is not.
    const at = NOW.toISOString();
    const record = aGoalRecord({
      lastCycle: { runId: "run-1", iteration: 3, progress: false, satisfiedChecks: [], at },
    });
    const cycle = goalEvent(record, "no_progress", NOW, { iteration: 3 });
    const checkAnswer = goalEvent(record, "progress", new Date(NOW.getTime() + 1000), { iteration: 4 });

    // Act + Assess
    expect(metricsOfChange(record, [cycle])).toEqual([
      {
        dimensionSets: [{ Pattern: "react" }],
        values: [{ name: GOAL_METRICS.iterations, unit: "Count", value: 1 }],
      },
    ]);
    expect(metricsOfChange(record, [checkAnswer])).toEqual([]);
  });

  it("puts a model call's tokens and cost under its role and model, and in the deployment's total", () => {
    // Prepare
    const usage = { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 50, cacheWriteTokens: 0 };
    const change = recordModelUsage(
      aGoalRecord(),
      "reason",
      { modelId: "us.anthropic.claude-haiku-4-5-20251001-v1:0", usage, content: [] },
      NOW,
    );

    // Act
    const [batch] = metricsOfChange(change.record, change.events);

    // Assess
    expect(batch?.dimensionSets).toEqual([
      {},
      { Role: "reason", Model: "us.anthropic.claude-haiku-4-5-20251001-v1:0" },
    ]);
    const values = Object.fromEntries((batch?.values ?? []).map(({ name, value }) => [name, value]));
    expect(values).toEqual({
      InputTokens: 1000,
      OutputTokens: 200,
      CacheReadTokens: 50,
      CacheWriteTokens: 0,
      CostUsd: change.record.usage.costUsd,
    });
    expect(values.CostUsd).toBeGreaterThan(0);
  });
});

describe("metricsOfDecision", () => {
  it("measures a human's wait from the request to the decision, or to the expiry, and not a superseded one", () => {
    // Prepare
    const requestedAt = "2026-01-01T00:00:00.000Z";
    const decided = anApproval({
      requestedAt,
      status: "approved",
      decision: { decision: "approve", decidedBy: "ana", decidedAt: "2026-01-01T00:01:30.000Z" },
    });

    // Act + Assess
    expect(metricsOfDecision(decided, NOW)).toEqual([
      {
        dimensionSets: [{ Outcome: "approved" }],
        values: [{ name: GOAL_METRICS.approvalWaitSeconds, unit: "Seconds", value: 90 }],
      },
    ]);
    expect(metricsOfDecision(anApproval({ requestedAt, status: "expired" }), NOW)[0]?.values[0]?.value).toBe(
      600,
    );
    expect(metricsOfDecision(anApproval({ status: "superseded" }), NOW)).toEqual([]);
  });
});

describe("withGoalMetrics", () => {
  const record = aGoalRecord();
  const paused = pause(record, { kind: "no_progress", detail: "maxNoProgressCycles", message: "stuck" }, NOW);

  function storeThat(commit: GoalStore["commit"]): GoalStore {
    return { commit, listGoals: async () => ({ items: [] }) } as unknown as GoalStore;
  }

  it("publishes what a commit wrote, and passes every other operation through", async () => {
    // Prepare
    const { published, metrics } = recording();
    const goals = withGoalMetrics(
      storeThat(async (next) => ({ record: next, version: 2 })),
      metrics,
    );

    // Act
    await goals.commit(paused.record, 1, paused.events);
    const listed = await goals.listGoals({ tenantId: "tenant-a" });

    // Assess
    expect(published.map((batch) => batch.values[0]?.name)).toEqual([GOAL_METRICS.goalsPaused]);
    expect(listed).toEqual({ items: [] });
  });

  it("publishes nothing for a commit that failed", async () => {
    // Prepare
    const { published, metrics } = recording();
    const goals = withGoalMetrics(
      storeThat(async () => {
        throw new Error("ConditionalCheckFailed");
      }),
      metrics,
    );

    // Act + Assess
    await expect(goals.commit(paused.record, 1, paused.events)).rejects.toThrow("ConditionalCheckFailed");
    expect(published).toEqual([]);
  });

  it("never fails a write because a metric could not be published", async () => {
    // Prepare
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const goals = withGoalMetrics(
      storeThat(async (next) => ({ record: next, version: 2 })),
      {
        publish: () => {
          throw new Error("stdout closed");
        },
      },
    );

    // Act
    const committed = await goals.commit(paused.record, 1, paused.events);

    // Assess
    expect(committed.version).toBe(2);
    expect(warn).toHaveBeenCalledWith("goal metrics not published", expect.any(Error));
  });
});

describe("createPowertoolsGoalMetrics", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it("writes one EMF line per batch, with the deployment's namespace, the service and each dimension set", async () => {
    // Prepare
    vi.stubEnv("POWERTOOLS_METRICS_NAMESPACE", "GoalLoops/test");
    vi.stubEnv("POWERTOOLS_SERVICE_NAME", "goal-loops");
    vi.stubEnv("POWERTOOLS_METRICS_DISABLED", "false");
    const lines: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const change = recordModelUsage(
      aGoalRecord(),
      "plan",
      {
        modelId: "us.anthropic.claude-haiku-4-5-20251001-v1:0",
        usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
        content: [],
      },
      NOW,
    );

    // Act
    createPowertoolsGoalMetrics().publish(metricsOfChange(change.record, change.events));

    // Assess
    expect(lines).toHaveLength(1);
    const emf = JSON.parse(lines[0] ?? "{}");
    expect(emf._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: "GoalLoops/test",
      Dimensions: [["service"], ["service", "Role", "Model"]],
    });
    expect(emf).toMatchObject({
      service: "goal-loops",
      Role: "plan",
      Model: "us.anthropic.claude-haiku-4-5-20251001-v1:0",
      InputTokens: 10,
    });
  });

  it("writes nothing when POWERTOOLS_METRICS_DISABLED is set, as the local runtime sets it", () => {
    // Prepare
    vi.stubEnv("POWERTOOLS_METRICS_DISABLED", "true");
    const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);

    // Act
    createPowertoolsGoalMetrics().publish(metricsOfDecision(anApproval({ status: "expired" }), NOW));

    // Assess
    expect(write).not.toHaveBeenCalled();
  });
});
