import { GoalLoopsError } from "../../goal/errors";
import type { CapacityHold, CapacityWaitReason } from "../../goal/goal-activity";
import type { GoalRecord } from "../../goal/goal-record";
import type { CapacityStore } from "../../ports/capacity-store";
import type { Clock } from "../../ports/clock";
import type { TokenUsage } from "../../ports/model-client";
import type { TenantLimits } from "../../tenants/tenant-limits";
import { spendDay, TenantBudgetReachedError } from "../../tenants/tenant-spend";
import type { ModelRole } from "../model-roles";
import {
  bookedStartMs,
  bookingHorizonMs,
  type CapacityPriority,
  chooseLane,
  laneChange,
  laneCost,
  laneCount,
  loweredRate,
  MAX_BOOKING_AHEAD_MS,
  rateFactor,
} from "./capacity-lanes";
import { type ModelQuota, type ModelQuotas, quotaOf, settledTokens } from "./model-quota";

/** The lane a call booked of its tenant's share of the model, settled with the model's own. */
export type TenantLaneGrant = Pick<CapacityHold, "model" | "lane" | "tokenIntervalMs">;

/** Capacity a call got: what to settle once its real usage is known, and when it could start (epoch ms). */
export type CapacityGrant = Omit<CapacityHold, "slotAt"> & {
  readonly startMs: number;
  readonly tenantLane?: TenantLaneGrant;
};

/** What the governor needs to know of the goal that asks (from its record, see `capacityContextOf`). */
export interface CapacityContext {
  readonly priority: CapacityPriority;
  /** The goal's tenant: its daily budget and its share of each model apply (tenants.limits). */
  readonly tenantId?: string;
  /** When the goal began to wait for this call, if it did: its reach grows with the wait. */
  readonly waitingSince?: string;
  /** How many times this call has waited already (the backoff for a model without a quota). */
  readonly attempts: number;
  /** The moment it booked before it went to wait. */
  readonly hold?: CapacityHold;
  /**
   * Whether it may book a moment ahead and wait for it (default true). A call that cannot wait (a
   * branch of ExecuteBatch, whose turn Execute makes later if need be) takes capacity only now.
   */
  readonly mayBook?: boolean;
}

/** The stable name of CapacityWaitError: the steps' capacity wrapper catches it by name. */
export const WAITING_FOR_CAPACITY = "WaitingForCapacity";

/**
 * The call cannot be made now: no model call was made or paid for. The step answers
 * `wait_for_capacity` (loop/capacity-wait.ts): its run waits `waitSeconds` in a Wait state, no
 * Lambda running, then the step runs again and spends `hold` if it booked one.
 */
export class CapacityWaitError extends GoalLoopsError {
  override readonly name = WAITING_FOR_CAPACITY;
  constructor(
    readonly model: string,
    readonly waitSeconds: number,
    readonly reason: CapacityWaitReason,
    readonly hold?: CapacityHold,
    /** The role whose call waits, once the checkpointed call names it. */
    readonly role?: ModelRole,
  ) {
    super(`No capacity for ${model} now (${reason}): waiting ${waitSeconds} s`);
  }

  /** The same wait, naming the role whose call it is. */
  forRole(role: ModelRole): CapacityWaitError {
    return new CapacityWaitError(this.model, this.waitSeconds, this.reason, this.hold, role);
  }
}

/** The context of a goal that never waited: normal priority, no booking. */
export const FIRST_ASK: CapacityContext = { priority: "normal", attempts: 0 };

/** The capacity context of a goal's next call, from its record: its priority and its wait so far. */
export function capacityContextOf(
  record: Pick<GoalRecord, "spec" | "activity"> & Partial<Pick<GoalRecord, "tenantId">>,
): CapacityContext {
  const waiting = record.activity;
  return {
    priority: record.spec.priority ?? "normal",
    ...(record.tenantId === undefined ? {} : { tenantId: record.tenantId }),
    attempts: waiting?.attempts ?? 0,
    ...(waiting === undefined ? {} : { waitingSince: waiting.since }),
    ...(waiting?.hold === undefined ? {} : { hold: waiting.hold }),
  };
}

/** By name, not instanceof: the error may come from another copy of this module (a bundle). */
export function isCapacityWait(error: unknown): error is CapacityWaitError {
  return error instanceof Error && error.name === WAITING_FOR_CAPACITY;
}

/** A booking this close is waited for inside the step: a Wait state costs more than the pause. */
export const IN_PROCESS_WAIT_MS = 1_000;
/**
 * Bookings refused this many times in a row (a lane went idle or filled up between the read and the
 * write; bookings of a busy lane never refuse each other) give way for a second.
 */
const MAX_BOOKING_CONFLICTS = 8;
/** A model without a quota backs off from a throttle this long, doubling per throttle of the same call. */
const THROTTLE_BACKOFF_BASE_MS = 1_000;
const THROTTLE_BACKOFF_MAX_MS = 60_000;

/** What the governor needs of the tenants (tenants/): their limits, and their spend per UTC day. */
export interface TenantCapacity {
  readonly limits: (tenantId: string) => Promise<TenantLimits>;
  readonly spent: (tenantId: string, day: string) => Promise<number>;
  /** Counts a call's cost toward the day; it must not throw (a lost count never fails a paid call). */
  readonly addSpend: (tenantId: string, day: string, usd: number) => Promise<void>;
}

/** Where a tenant's lanes of a model live: a partition of their own beside the model's. */
export function tenantLaneKey(modelId: string, tenantId: string): string {
  return `${modelId}#tenant#${tenantId}`;
}

/** A share of a model's quota (at least one request and a thousand tokens a minute). */
function shareOf(quota: ModelQuota, share: number): ModelQuota {
  return {
    ...quota,
    requestsPerMinute: Math.max(1, Math.floor(quota.requestsPerMinute * share)),
    tokensPerMinute: Math.max(1000, Math.floor(quota.tokensPerMinute * share)),
  };
}

export interface CapacityGovernorPorts {
  readonly store: CapacityStore;
  /** The tenants' budgets and shares; absent: no tenant limit is applied. */
  readonly tenants?: TenantCapacity;
  readonly quotas: ModelQuotas;
  readonly now: Clock;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Spreads concurrent bookings over the lanes and jitters backoffs; tests pass a fixed one. */
  readonly random?: () => number;
}

/** A goal's tenant limits read ahead of its call (`CapacityGovernor.readTenantLimitsEarly`). */
export type EarlyTenantLimits = Promise<TenantLimits | undefined>;

/**
 * The capacity governor every step shares (DESIGN §4 "Capacity is not failure"): it paces each
 * model's calls within `models.quotas`, counting requests and tokens the way Bedrock does
 * (model-quota.ts), in the order the calls asked (capacity-lanes.ts), and lowers its pace when
 * Bedrock throttles anyway. A model without a quota is not paced; its throttles still wait.
 */
export class CapacityGovernor {
  private readonly store: CapacityStore;
  private readonly quotas: ModelQuotas;
  private readonly now: Clock;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly tenants: TenantCapacity | undefined;

  constructor(ports: CapacityGovernorPorts) {
    this.store = ports.store;
    this.tenants = ports.tenants;
    this.quotas = ports.quotas;
    this.now = ports.now;
    this.sleep = ports.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = ports.random ?? Math.random;
  }

  /**
   * Capacity for one call of `tokens` quota tokens to `modelId`: a grant to settle after the call
   * (undefined for a model without a quota), or a CapacityWaitError when the call must wait. A goal
   * whose tenant spent its daily budget gets a TenantBudgetReachedError (no call is made). A tenant
   * with a `modelShare` books a lane of its own share of the quota first (reason `tenant_share`
   * while it is full), then the model's lanes, so its calls never take more than its share.
   */
  async acquire(
    modelId: string,
    tokens: number,
    context: CapacityContext,
    early?: EarlyTenantLimits,
  ): Promise<CapacityGrant | undefined> {
    const limits = await (early ?? this.tenantLimits(context));
    if (limits?.spendPerDayUsd !== undefined && context.tenantId !== undefined) {
      await this.checkBudget(context.tenantId, limits.spendPerDayUsd);
    }
    const quota = quotaOf(this.quotas, modelId);
    if (quota === undefined) return undefined;
    const hold = context.hold?.model === modelId ? context.hold : undefined;
    if (hold !== undefined) return this.spend(hold);
    const share = limits?.modelShare;
    let tenantLane: TenantLaneGrant | undefined;
    if (share !== undefined && share < 1 && context.tenantId !== undefined) {
      const key = tenantLaneKey(modelId, context.tenantId);
      const booked =
        context.hold?.model === key
          ? await this.spend(context.hold, modelId, "tenant_share")
          : await this.book(key, shareOf(quota, share), tokens, context, "tenant_share", modelId);
      tenantLane = { model: booked.model, lane: booked.lane, tokenIntervalMs: booked.tokenIntervalMs };
    }
    const grant = await this.book(modelId, quota, tokens, { ...context, hold: undefined }, "quota", modelId);
    return tenantLane === undefined ? grant : { ...grant, tenantLane };
  }

  /**
   * Starts reading the limits of the goal's tenant before the step knows it will call, beside its
   * other reads, for the `acquire` of that call to use instead of reading them then: one DynamoDB
   * round trip fewer before the call. Read in the same invocation, moments earlier, so a limit a
   * tenant's owner changes takes effect as before: from the next invocation's read. A read that
   * fails fails the `acquire` that uses it; one no call uses is dropped.
   */
  readTenantLimitsEarly(context: CapacityContext): EarlyTenantLimits | undefined {
    if (this.tenants === undefined || context.tenantId === undefined) return undefined;
    // Through a promise, so a read that throws at once fails the same way as one that rejects.
    const read = Promise.resolve(context).then((started) => this.tenantLimits(started));
    read.catch(() => undefined);
    return read;
  }

  /** The tenant's limits, for a call of a goal with a tenant when the governor knows the tenants. */
  private async tenantLimits(context: CapacityContext): Promise<TenantLimits | undefined> {
    if (this.tenants === undefined || context.tenantId === undefined) return undefined;
    return this.tenants.limits(context.tenantId);
  }

  private async checkBudget(tenantId: string, budgetUsd: number): Promise<void> {
    const day = spendDay(this.now());
    const spent = await this.tenants?.spent(tenantId, day);
    if (spent !== undefined && spent >= budgetUsd) {
      throw new TenantBudgetReachedError(tenantId, spent, budgetUsd, day);
    }
  }

  /** Counts a paid call's cost toward its tenant's day (nothing for a goal without a tenant). */
  async spent(context: CapacityContext, usd: number): Promise<void> {
    if (this.tenants === undefined || context.tenantId === undefined || !(usd > 0)) return;
    await this.tenants.addSpend(context.tenantId, spendDay(this.now()), usd);
  }

  /**
   * Books one of `key`'s lanes at `quota`'s pace (a model's, or a tenant's share of it): a grant now,
   * or a CapacityWaitError for `modelId` with the moment booked ahead, or none when it is not yet
   * this call's turn to book.
   */
  private async book(
    key: string,
    quota: ModelQuota,
    tokens: number,
    context: CapacityContext,
    reason: CapacityWaitReason,
    modelId: string,
  ): Promise<CapacityGrant> {
    for (let conflicts = 0; conflicts < MAX_BOOKING_CONFLICTS; conflicts += 1) {
      const state = await this.store.read(key);
      const nowMs = this.now().getTime();
      const cost = laneCost(quota, rateFactor(state.rate, nowMs));
      const { lane, startMs } = chooseLane(state.lanes, laneCount(quota), tokens, cost, nowMs, this.random());
      const waited = context.waitingSince === undefined ? 0 : nowMs - Date.parse(context.waitingSince);
      const reach =
        context.mayBook === false ? IN_PROCESS_WAIT_MS : bookingHorizonMs(context.priority, waited);
      const ahead = startMs - nowMs;
      if (ahead > reach) {
        // Not this call's turn to book yet: ask again once its reach could cover the free moment.
        const wait = context.mayBook === false ? ahead : Math.min(ahead - reach, 60_000);
        throw new CapacityWaitError(modelId, waitSeconds(wait), reason);
      }
      const change = laneChange(state.lanes.get(lane), tokens, cost, nowMs, nowMs + reach);
      const after = await this.store.book(key, lane, change);
      if (after === undefined) continue;
      const bookedMs = bookedStartMs(after, tokens, cost, nowMs);
      const grant: CapacityGrant = {
        model: key,
        lane,
        tokens,
        tokenIntervalMs: cost.tokenIntervalMs,
        startMs: bookedMs,
      };
      if (bookedMs - nowMs <= IN_PROCESS_WAIT_MS) {
        if (bookedMs > nowMs) await this.sleep(bookedMs - nowMs);
        return grant;
      }
      const { startMs: _start, ...held } = grant;
      const slotAt = new Date(bookedMs).toISOString();
      throw new CapacityWaitError(modelId, holdWaitSeconds(bookedMs - nowMs), reason, { ...held, slotAt });
    }
    throw new CapacityWaitError(modelId, 1, "contention");
  }

  /** Returns what a call did not use of its reservation, or takes what it used beyond it. */
  async settle(grant: CapacityGrant | undefined, usage: TokenUsage): Promise<void> {
    if (grant === undefined) return;
    const delta = settledTokens(grant.model, usage) - grant.tokens;
    if (delta === 0) return;
    await this.store.adjustTokens(grant.model, grant.lane, delta * grant.tokenIntervalMs);
    const { tenantLane } = grant;
    if (tenantLane !== undefined) {
      await this.store.adjustTokens(tenantLane.model, tenantLane.lane, delta * tenantLane.tokenIntervalMs);
    }
  }

  /**
   * Bedrock throttled a call the governor let through (the account's quota is lower than the
   * configured one, or another application uses it): the model's pace is lowered (capacity-lanes.ts
   * `loweredRate`), to recover over a minute, and the call books a later moment. Always throws the
   * CapacityWaitError to wait with.
   */
  async throttled(modelId: string, tokens: number, context: CapacityContext): Promise<never> {
    const quota = quotaOf(this.quotas, modelId);
    if (quota === undefined) {
      const ceiling = Math.min(THROTTLE_BACKOFF_MAX_MS, THROTTLE_BACKOFF_BASE_MS * 2 ** context.attempts);
      // Equal jitter: at least half the backoff, so a burst of throttled goals spreads but still waits.
      const backoff = ceiling / 2 + (this.random() * ceiling) / 2;
      throw new CapacityWaitError(modelId, waitSeconds(backoff), "throttled");
    }
    const state = await this.store.read(modelId);
    const lowered = loweredRate(state.rate, this.now().getTime());
    if (lowered !== undefined) await this.store.setRate(modelId, state.rate, lowered);
    try {
      // The model's lanes only: the tenant's share was booked for this call already.
      await this.book(modelId, quota, tokens, { ...context, hold: undefined }, "quota", modelId);
    } catch (error) {
      if (!isCapacityWait(error)) throw error;
      throw new CapacityWaitError(modelId, error.waitSeconds, "throttled", error.hold);
    }
    // The pace left room at once: still step back for a second, the burst Bedrock refused may go on.
    throw new CapacityWaitError(modelId, 1, "throttled");
  }

  /** A hold the goal booked before it waited: due now (or within a pause), or still ahead. */
  private async spend(
    hold: CapacityHold,
    modelId = hold.model,
    reason: CapacityWaitReason = "quota",
  ): Promise<CapacityGrant> {
    const ahead = Date.parse(hold.slotAt) - this.now().getTime();
    if (ahead > IN_PROCESS_WAIT_MS)
      throw new CapacityWaitError(modelId, holdWaitSeconds(ahead), reason, hold);
    if (ahead > 0) await this.sleep(ahead);
    const { slotAt, ...grant } = hold;
    return { ...grant, startMs: Date.parse(slotAt) };
  }
}

/** Whole seconds for a Wait state: at least 1, at most MAX_BOOKING_AHEAD_MS. */
function waitSeconds(ms: number): number {
  return Math.min(MAX_BOOKING_AHEAD_MS / 1000, Math.max(1, Math.ceil(ms / 1000)));
}

/**
 * Whole seconds to wait for a booked moment `ms` ahead: rounded down, so the step runs again up to a
 * second early and pauses in process until the moment itself (`spend`). Rounded up, every call would
 * reach Bedrock up to a second late, by a different amount each, and calls booked apart would bunch.
 */
function holdWaitSeconds(ms: number): number {
  return Math.min(MAX_BOOKING_AHEAD_MS / 1000, Math.max(1, Math.floor(ms / 1000)));
}
