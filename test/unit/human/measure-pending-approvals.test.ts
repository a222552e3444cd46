import { describe, expect, it } from "vitest";
import { GOAL_METRICS, type MetricBatch } from "../../../lambdas/adapters/metrics/goal-metrics";
import type { Approval } from "../../../lambdas/core/ports/goal-store";
import { measurePendingApprovals } from "../../../lambdas/handlers/human/measure-pending-approvals";
import { anApproval } from "../../support/goal-store-builders";

const NOW = new Date("2026-01-01T05:00:00.000Z");

function setup(pendingByTenant: Record<string, Approval[]>) {
  const published: MetricBatch[] = [];
  const queries: unknown[] = [];
  const goals = {
    listApprovals: async (query: { tenantId: string; status: string; limit?: number }) => {
      queries.push(query);
      return (pendingByTenant[query.tenantId] ?? []).slice(0, query.limit);
    },
  };
  const metrics = { publish: (batches: readonly MetricBatch[]) => published.push(...batches) };
  return { goals, metrics, published, queries };
}

describe("measurePendingApprovals", () => {
  it("publishes the age of the oldest pending approval across the tenants, reading one per tenant", async () => {
    // Prepare
    const oldest = anApproval({ tenantId: "222222222222", requestedAt: "2026-01-01T01:00:00.000Z" });
    const { goals, metrics, published, queries } = setup({
      "111111111111": [anApproval({ tenantId: "111111111111", requestedAt: "2026-01-01T04:00:00.000Z" })],
      "222222222222": [oldest],
    });

    // Act
    const measure = await measurePendingApprovals({
      goals,
      metrics,
      tenantIds: ["111111111111", "222222222222"],
      now: () => NOW,
    });

    // Assess
    expect(measure).toEqual({ oldestAgeSeconds: 4 * 3600, oldestApprovalId: oldest.approvalId });
    expect(queries).toEqual([
      { tenantId: "111111111111", status: "pending", limit: 1 },
      { tenantId: "222222222222", status: "pending", limit: 1 },
    ]);
    expect(published).toEqual([
      {
        dimensionSets: [{}],
        values: [{ name: GOAL_METRICS.oldestPendingApprovalAgeSeconds, unit: "Seconds", value: 4 * 3600 }],
      },
    ]);
  });

  it("publishes 0 when nothing waits, so the alarm always has a datapoint", async () => {
    const { goals, metrics, published } = setup({});
    const measure = await measurePendingApprovals({
      goals,
      metrics,
      tenantIds: ["111111111111"],
      now: () => NOW,
    });
    expect(measure).toEqual({ oldestAgeSeconds: 0 });
    expect(published[0]?.values[0]?.value).toBe(0);
  });
});
