import type { GoalStore } from "../ports/goal-store";
import type { TenantStore } from "../ports/tenant-store";
import * as z from "../zod";
import { effectiveLimits, patchOverride, type TenantLimits, type TenantLimitsPatch } from "./tenant-limits";
import { spendDay } from "./tenant-spend";
import type { TenantsSettings } from "./tenants-settings";

/** A tenant's limits in effect now: what the configuration says, with what an operator set over it. */
export type TenantLimitsReader = (tenantId: string) => Promise<TenantLimits>;

export function tenantLimitsReader(
  settings: TenantsSettings,
  store: Pick<TenantStore, "readOverride">,
): TenantLimitsReader {
  return async (tenantId) => effectiveLimits(settings.limits, tenantId, await store.readOverride(tenantId));
}

/** What a tenant uses now, beside its limits (`GET /tenants/me`). */
export const TenantUsageSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    runningGoals: z
      .number()
      .check(
        z.int(),
        z.gte(0),
        z.describe("Its goals whose status is `running` now (a waiting or paused goal is not running)"),
      ),
    concurrentGoals: z
      .number()
      .check(
        z.int(),
        z.gte(0),
        z.describe(
          "Its goals counted against limits.concurrentGoals: started and not yet ended, a waiting or paused one included; counted only while the tenant has a concurrency limit (0 without one)",
        ),
      ),
    spendTodayUsd: z.number().check(z.gte(0), z.describe("Model spend of its goals today (UTC), in USD")),
    day: z.string().check(z.describe("The UTC day the spend is counted for (YYYY-MM-DD)")),
  }),
);
export type TenantUsage = z.output<typeof TenantUsageSchema>;

export async function tenantUsage(
  ports: {
    readonly store: Pick<TenantStore, "slotHolders" | "spend">;
    readonly goals: Pick<GoalStore, "countGoals">;
  },
  tenantId: string,
  now: Date,
): Promise<TenantUsage> {
  const day = spendDay(now);
  const [running, holders, spent] = await Promise.all([
    ports.goals.countGoals({ tenantId, status: "running" }),
    ports.store.slotHolders(tenantId),
    ports.store.spend(tenantId, day),
  ]);
  return { runningGoals: running, concurrentGoals: holders.length, spendTodayUsd: spent, day };
}

/**
 * An operator sets a tenant's limits (`POST /tenants/{id}/limits`): kept in the store over the
 * configuration's until changed again. Answers the limits now in effect.
 */
export async function setTenantLimits(
  ports: {
    readonly settings: TenantsSettings;
    readonly store: Pick<TenantStore, "readOverride" | "writeOverride">;
  },
  input: {
    readonly tenantId: string;
    readonly patch: TenantLimitsPatch;
    readonly by: string;
    readonly now: Date;
  },
): Promise<TenantLimits> {
  const current = await ports.store.readOverride(input.tenantId);
  const next = patchOverride(current, input.patch);
  await ports.store.writeOverride(input.tenantId, next, input.by, input.now);
  return effectiveLimits(ports.settings.limits, input.tenantId, next);
}
