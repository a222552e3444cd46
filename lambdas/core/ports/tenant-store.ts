import type { TenantLimitsOverride } from "../tenants/tenant-limits";

/**
 * What the deployment keeps per tenant, shared by every function (the goal table deployed and
 * locally, partition `TENANT#{tenantId}`): the limits an operator set, the goals holding its
 * concurrent-goal slots, its start pace and its spend per day. Every write is conditional or
 * commutative, so functions serving the same tenant at once never undo each other's work.
 */
export interface TenantStore {
  /** What an operator set through `POST /tenants/{id}/limits`, if anything. */
  readOverride(tenantId: string): Promise<TenantLimitsOverride | undefined>;
  writeOverride(tenantId: string, override: TenantLimitsOverride, by: string, at: Date): Promise<void>;

  /** The goals holding the tenant's slots (started, not yet ended), in no order. */
  slotHolders(tenantId: string): Promise<readonly string[]>;
  /**
   * Gives `goalId` one of the tenant's slots when fewer than `limit` are held (or it holds one
   * already): one conditional write. False when all are taken.
   */
  takeSlot(tenantId: string, goalId: string, limit: number): Promise<boolean>;
  /** Frees the goal's slot; freeing one it does not hold changes nothing. */
  releaseSlots(tenantId: string, goalIds: readonly string[]): Promise<void>;

  /** The start pace's theoretical arrival time (epoch ms), undefined before the first start. */
  readStartTat(tenantId: string): Promise<number | undefined>;
  /** Writes `next` if the stored TAT is still `expected`; false when another start moved it first. */
  writeStartTat(tenantId: string, expected: number | undefined, next: number): Promise<boolean>;

  /** Adds to the tenant's spend of `day` (`YYYY-MM-DD`, UTC): an atomic add. */
  addSpend(tenantId: string, day: string, usd: number): Promise<void>;
  /** The tenant's spend of `day` so far (0 before any). */
  spend(tenantId: string, day: string): Promise<number>;
}
