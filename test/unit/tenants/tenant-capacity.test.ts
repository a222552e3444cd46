import { describe, expect, it } from "vitest";
import {
  type CapacityContext,
  CapacityGovernor,
  isCapacityWait,
  tenantLaneKey,
} from "../../../lambdas/core/models/capacity/capacity-governor";
import type { TenantLimits } from "../../../lambdas/core/tenants/tenant-limits";
import { isTenantBudgetReached, spendDay } from "../../../lambdas/core/tenants/tenant-spend";
import { MemoryCapacityStore } from "../../support/memory-capacity-store";
import { MemoryTenantStore } from "../../support/memory-tenant-store";

const MODEL = "amazon.nova-lite-v1:0";
const NOW = new Date("2026-12-07T10:00:00.000Z");
/** Sixty requests a minute, a second's worth at once: one lane, one request a second. */
const QUOTA = { requestsPerMinute: 60, tokensPerMinute: 10_000_000, burstSeconds: 1 };
const USAGE = { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 };

function governorWith(limits: Record<string, TenantLimits>) {
  const capacity = new MemoryCapacityStore();
  const tenants = new MemoryTenantStore();
  const governor = new CapacityGovernor({
    store: capacity,
    quotas: { [MODEL]: QUOTA },
    now: () => NOW,
    sleep: async () => {},
    random: () => 0,
    tenants: {
      limits: async (tenantId) => limits[tenantId] ?? {},
      spent: (tenantId, day) => tenants.spend(tenantId, day),
      addSpend: (tenantId, day, usd) => tenants.addSpend(tenantId, day, usd),
    },
  });
  return { governor, capacity, tenants };
}

const of = (tenantId: string): CapacityContext => ({ priority: "normal", attempts: 0, tenantId });

describe("the capacity governor's tenant limits", () => {
  it("refuses the next call of a tenant that spent its daily budget, before anything is booked", async () => {
    // Prepare: team-a has spent $2 of $2 today, team-b nothing
    const { governor, tenants, capacity } = governorWith({
      "team-a": { spendPerDayUsd: 2 },
      "team-b": { spendPerDayUsd: 2 },
    });
    await tenants.addSpend("team-a", spendDay(NOW), 2);

    // Act
    const refused = await governor.acquire(MODEL, 100, of("team-a")).catch((error: unknown) => error);
    const granted = await governor.acquire(MODEL, 100, of("team-b"));

    // Assess
    expect(isTenantBudgetReached(refused)).toBe(true);
    expect(refused).toMatchObject({ tenantId: "team-a", spentUsd: 2, budgetUsd: 2, day: "2026-12-07" });
    expect(granted?.model).toBe(MODEL);
    expect(capacity.lanes.get(MODEL)?.size).toBe(1);
  });

  it("uses the limits read ahead of the call (one read, not two), and refuses on them as on its own read", async () => {
    // Prepare: count the limits reads; team-a has spent its $2 today
    const { tenants } = governorWith({ "team-a": { spendPerDayUsd: 2 } });
    await tenants.addSpend("team-a", spendDay(NOW), 2);
    const reads: string[] = [];
    const counting = new CapacityGovernor({
      store: new MemoryCapacityStore(),
      quotas: { [MODEL]: QUOTA },
      now: () => NOW,
      sleep: async () => {},
      random: () => 0,
      tenants: {
        limits: async (tenantId) => {
          reads.push(tenantId);
          return tenantId === "team-a" ? { spendPerDayUsd: 2 } : {};
        },
        spent: (tenantId, day) => tenants.spend(tenantId, day),
        addSpend: (tenantId, day, usd) => tenants.addSpend(tenantId, day, usd),
      },
    });

    // Act
    const early = counting.readTenantLimitsEarly(of("team-b"));
    const granted = await counting.acquire(MODEL, 100, of("team-b"), early);
    const refused = await counting
      .acquire(MODEL, 100, of("team-a"), counting.readTenantLimitsEarly(of("team-a")))
      .catch((error: unknown) => error);
    const none = counting.readTenantLimitsEarly({ priority: "normal", attempts: 0 });

    // Assess
    expect(granted?.model).toBe(MODEL);
    expect(isTenantBudgetReached(refused)).toBe(true);
    expect(reads).toEqual(["team-b", "team-a"]);
    expect(none).toBeUndefined();
  });

  it("counts what each paid call cost toward its tenant's day, and nothing for a goal without a tenant", async () => {
    // Prepare
    const { governor, tenants } = governorWith({});

    // Act
    await governor.spent(of("team-a"), 0.25);
    await governor.spent(of("team-a"), 0.5);
    await governor.spent({ priority: "normal", attempts: 0 }, 9);

    // Assess
    expect(await tenants.spend("team-a", "2026-12-07")).toBeCloseTo(0.75, 10);
  });

  it("keeps a tenant within its share of a model while another tenant still gets the rest", async () => {
    // Prepare: team-a may use half of the model's quota, team-b has no share limit
    const { governor, capacity } = governorWith({ "team-a": { modelShare: 0.5 } });

    // Act: team-a asks twice at the same moment, then team-b once
    const first = await governor.acquire(MODEL, 100, of("team-a"));
    const second = await governor.acquire(MODEL, 100, of("team-a")).catch((error: unknown) => error);
    const other = await governor.acquire(MODEL, 100, of("team-b"));

    // Assess: team-a's first call went, booking its own lane and the model's; its second waits on
    // its share (30 a minute: one every two seconds), team-b's call is not held back by it
    expect(first?.tenantLane?.model).toBe(tenantLaneKey(MODEL, "team-a"));
    expect(isCapacityWait(second)).toBe(true);
    expect(second).toMatchObject({ model: MODEL, reason: "tenant_share" });
    expect(other?.model).toBe(MODEL);
    expect(other?.tenantLane).toBeUndefined();
    expect(capacity.lanes.get(tenantLaneKey(MODEL, "team-b"))).toBeUndefined();
  });

  it("settles a call's unused tokens on its tenant's lane as on the model's", async () => {
    // Prepare
    const { governor, capacity } = governorWith({ "team-a": { modelShare: 0.5 } });
    const grant = await governor.acquire(MODEL, 5000, of("team-a"));
    const key = tenantLaneKey(MODEL, "team-a");
    const before = capacity.lanes.get(key)?.get(0)?.tokenTatMs ?? 0;

    // Act
    await governor.settle(grant, USAGE);

    // Assess: both lanes gave back the reservation's unused tokens
    expect(capacity.lanes.get(key)?.get(0)?.tokenTatMs ?? 0).toBeLessThan(before);
  });
});
