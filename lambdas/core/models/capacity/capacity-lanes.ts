import type { GoalPriority } from "../../goal/goal-spec";
import type { LaneChange, LaneState, RateState, TatChange } from "../../ports/capacity-store";
import type { ModelQuota } from "./model-quota";

/**
 * The arithmetic of the capacity governor, pure: a model's quota is spread over a few lanes, and
 * each lane is a GCRA (generic cell rate algorithm) — a token bucket kept as one "theoretical
 * arrival time" per resource. A request of `tokens` quota tokens books the earliest moment both its
 * lane's request TAT and token TAT allow, and pushes both forward by what it costs. Booking a
 * moment in the future reserves it: calls get capacity in the order they booked, so no call
 * starves behind newer ones. Nothing here reads a clock or a store.
 */

/** A throttle never takes the rate below this share of the configured quota. */
export const MIN_RATE_FACTOR = 0.05;
/** A lowered rate climbs back by the whole quota over this long (from 70 % in 18 s). */
export const RATE_RECOVERY_MS = 60_000;
/**
 * A throttle multiplies the rate by this: the AWS SDKs' adaptive retry mode lowers its send rate by
 * the same factor (CUBIC's β = 0.7) when a service throttles. Halving would make every throttle
 * from a burst that only arrived bunched (the account's quota is as configured) cost far more
 * throughput than the throttle itself.
 */
export const RATE_DECREASE_FACTOR = 0.7;
/** Throttles closer together than this lower the rate once: they answer the same burst. */
export const RATE_DECREASE_GUARD_MS = 2_000;
/** At most this many lanes per model: enough that concurrent bookings rarely collide on one item. */
export const MAX_LANES = 8;
/**
 * The tokens a lane's bucket holds at least: a large call (a long prompt and its `maxTokens`) fits
 * one lane, so splitting the quota never makes a call wait for, or overrun, a lane too small for it.
 */
export const MIN_LANE_TOKENS = 32_000;

/** The rate's share of the quota at `nowMs`, after its linear recovery. */
export function rateFactor(rate: RateState | undefined, nowMs: number): number {
  if (rate === undefined) return 1;
  const recovered = rate.factor + Math.max(0, nowMs - rate.sinceMs) / RATE_RECOVERY_MS;
  return Math.min(1, Math.max(MIN_RATE_FACTOR, recovered));
}

/**
 * The rate after a throttle at `nowMs`: RATE_DECREASE_FACTOR of what it was, unless the last
 * decrease answered the same burst. Throttles in a row compound (0.7, 0.49, …) down to MIN_RATE_FACTOR.
 */
export function loweredRate(rate: RateState | undefined, nowMs: number): RateState | undefined {
  if (rate !== undefined && nowMs - rate.sinceMs < RATE_DECREASE_GUARD_MS) return undefined;
  return {
    factor: Math.max(MIN_RATE_FACTOR, rateFactor(rate, nowMs) * RATE_DECREASE_FACTOR),
    sinceMs: nowMs,
  };
}

/**
 * How many lanes a quota gets: about one per request per second, as long as each lane's share of
 * the burst still holds MIN_LANE_TOKENS; 1 to MAX_LANES. Fixed by the quota alone, so every caller
 * agrees without reading anything.
 */
export function laneCount(quota: ModelQuota): number {
  const byRequests = Math.floor(quota.requestsPerMinute / 60);
  const byTokens = Math.floor(((quota.tokensPerMinute / 60) * quota.burstSeconds) / MIN_LANE_TOKENS);
  return Math.min(MAX_LANES, Math.max(1, Math.min(byRequests, byTokens)));
}

/** What one request costs a lane, in milliseconds of its TATs, at the rate's share `factor`. */
export interface LaneCost {
  readonly requestIntervalMs: number;
  /** Milliseconds of the lane's token TAT per quota token. */
  readonly tokenIntervalMs: number;
  /**
   * How far ahead of now a lane's TATs may run (its bucket, in time): `burstSeconds` of the quota
   * less ARRIVAL_HEADROOM_MS, and at least one request's worth.
   */
  readonly toleranceMs: number;
}

/**
 * How much of the burst the governor leaves unbooked. A call reaches Bedrock a little after the
 * moment it booked (a Wait state ends, a Lambda starts, a request crosses the network); calls that
 * booked apart may arrive together, and this much of the bucket absorbs that.
 */
export const ARRIVAL_HEADROOM_MS = 1_000;

export function laneCost(quota: ModelQuota, factor: number): LaneCost {
  const lanes = laneCount(quota);
  const requestIntervalMs = (60_000 * lanes) / (quota.requestsPerMinute * factor);
  return {
    requestIntervalMs,
    tokenIntervalMs: (60_000 * lanes) / (quota.tokensPerMinute * factor),
    toleranceMs: Math.max(requestIntervalMs, quota.burstSeconds * 1000 - ARRIVAL_HEADROOM_MS),
  };
}

/** What a call costs a lane: its share of the lane's bucket in milliseconds of each TAT. */
interface CallCost {
  readonly requestMs: number;
  readonly tokenMs: number;
  /** How far ahead of its start each TAT may run before the call fits (the bucket less the call). */
  readonly requestSlackMs: number;
  readonly tokenSlackMs: number;
}

function callCost(tokens: number, cost: LaneCost): CallCost {
  const tokenMs = tokens * cost.tokenIntervalMs;
  return {
    requestMs: cost.requestIntervalMs,
    tokenMs,
    requestSlackMs: cost.toleranceMs - cost.requestIntervalMs,
    // A call larger than the whole bucket fits an empty one.
    tokenSlackMs: cost.toleranceMs - Math.min(tokenMs, cost.toleranceMs),
  };
}

/**
 * When a call of `tokens` could start on a lane as it stands: once the lane's bucket has room for
 * all of it — one request, and its tokens — as a token bucket of `toleranceMs` of the quota admits
 * it. The local Bedrock endpoint admits by the same rule (lib/local/bedrock/model-quota-enforcer.ts).
 */
export function laneStartMs(
  state: LaneState | undefined,
  tokens: number,
  cost: LaneCost,
  nowMs: number,
): number {
  const call = callCost(tokens, cost);
  return Math.max(
    nowMs,
    (state?.requestTatMs ?? 0) - call.requestSlackMs,
    (state?.tokenTatMs ?? 0) - call.tokenSlackMs,
  );
}

/**
 * The lane a call should book: one of those that let it start soonest (within `toleranceMs` of
 * the earliest), picked by `pick` (0 to 1): concurrent callers spread over the lanes with room.
 */
export function chooseLane(
  lanes: ReadonlyMap<number, LaneState>,
  count: number,
  tokens: number,
  cost: LaneCost,
  nowMs: number,
  pick: number,
): { readonly lane: number; readonly startMs: number } {
  const starts = Array.from({ length: count }, (_, lane) => ({
    lane,
    startMs: laneStartMs(lanes.get(lane), tokens, cost, nowMs),
  }));
  const earliest = Math.min(...starts.map((start) => start.startMs));
  const near = starts.filter((start) => start.startMs <= earliest + Math.min(cost.toleranceMs, 1000));
  return near[Math.min(near.length - 1, Math.floor(pick * near.length))] ?? { lane: 0, startMs: earliest };
}

/**
 * The write that books a call of `tokens` on a lane that stood at `state`, starting no later than
 * `latestStartMs`, as one atomic conditional write: an idle TAT (behind `now`) is set to now plus
 * the cost; a busy one gets the cost added, on condition it is still from `now` (not gone idle
 * meanwhile) to where the call still starts within its reach. Adds commute, so concurrent bookings
 * of a busy lane all succeed, one after the other; the store refuses the write when a condition
 * fails, and the caller reads again.
 */
export function laneChange(
  state: LaneState | undefined,
  tokens: number,
  cost: LaneCost,
  nowMs: number,
  latestStartMs: number,
): LaneChange {
  const call = callCost(tokens, cost);
  const change = (tat: number, amount: number, slack: number): TatChange =>
    tat < nowMs
      ? { kind: "reset", below: nowMs, to: nowMs + amount }
      : { kind: "add", amount, atLeast: nowMs, atMost: latestStartMs + slack };
  return {
    request: change(state?.requestTatMs ?? 0, call.requestMs, call.requestSlackMs),
    tokens: change(state?.tokenTatMs ?? 0, call.tokenMs, call.tokenSlackMs),
  };
}

/** When a call booked by `laneChange` starts, from the lane's TATs right after its booking. */
export function bookedStartMs(after: LaneState, tokens: number, cost: LaneCost, nowMs: number): number {
  const call = callCost(tokens, cost);
  return Math.max(
    nowMs,
    after.requestTatMs - call.requestMs - call.requestSlackMs,
    after.tokenTatMs - call.tokenMs - call.tokenSlackMs,
  );
}

/** The capacity priorities a GoalSpec may name (`priority`); absent is `normal`. */
export type CapacityPriority = GoalPriority;

/** The longest a call ever books ahead, or waits in one go before it asks again. */
export const MAX_BOOKING_AHEAD_MS = 15 * 60_000;

/**
 * How far ahead a call of `priority` that has waited `waitedMs` so far may book: high up to
 * MAX_BOOKING_AHEAD_MS, normal up to a minute and low up to 10 seconds, each widened by twice the
 * time it has waited. Under a backlog high calls book first; no call books past MAX_BOOKING_AHEAD_MS,
 * so a waiting call's reach catches up with the furthest booking within minutes, and none starves.
 */
export function bookingHorizonMs(priority: CapacityPriority, waitedMs: number): number {
  const waited = Math.max(0, waitedMs);
  switch (priority) {
    case "high":
      return MAX_BOOKING_AHEAD_MS;
    case "normal":
      return Math.min(MAX_BOOKING_AHEAD_MS, 60_000 + 2 * waited);
    case "low":
      return Math.min(MAX_BOOKING_AHEAD_MS, 10_000 + 2 * waited);
  }
}
