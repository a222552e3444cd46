import type { TenantStore } from "../../lambdas/core/ports/tenant-store";
import type { TenantLimitsOverride } from "../../lambdas/core/tenants/tenant-limits";

/**
 * The TenantStore port in memory, with the DynamoDB adapter's semantics: a slot is taken by one
 * conditional add to a set (size below the limit, or already held), freed by a delete; the start TAT
 * is written under a condition on the value read; spend is an atomic add per day.
 */
export class MemoryTenantStore implements TenantStore {
  readonly overrides = new Map<string, TenantLimitsOverride>();
  readonly slots = new Map<string, Set<string>>();
  readonly starts = new Map<string, number>();
  readonly spends = new Map<string, number>();

  async readOverride(tenantId: string) {
    return this.overrides.get(tenantId);
  }

  async writeOverride(tenantId: string, override: TenantLimitsOverride) {
    this.overrides.set(tenantId, override);
  }

  async slotHolders(tenantId: string) {
    return [...(this.slots.get(tenantId) ?? [])];
  }

  async takeSlot(tenantId: string, goalId: string, limit: number) {
    const held = this.slots.get(tenantId) ?? new Set<string>();
    if (!held.has(goalId) && held.size >= limit) return false;
    held.add(goalId);
    this.slots.set(tenantId, held);
    return true;
  }

  async releaseSlots(tenantId: string, goalIds: readonly string[]) {
    for (const goalId of goalIds) this.slots.get(tenantId)?.delete(goalId);
  }

  async readStartTat(tenantId: string) {
    return this.starts.get(tenantId);
  }

  async writeStartTat(tenantId: string, expected: number | undefined, next: number) {
    if (this.starts.get(tenantId) !== expected) return false;
    this.starts.set(tenantId, next);
    return true;
  }

  async addSpend(tenantId: string, day: string, usd: number) {
    const key = `${tenantId} ${day}`;
    this.spends.set(key, (this.spends.get(key) ?? 0) + usd);
  }

  async spend(tenantId: string, day: string) {
    return this.spends.get(`${tenantId} ${day}`) ?? 0;
  }
}
