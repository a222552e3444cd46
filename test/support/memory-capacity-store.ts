import type {
  CapacityStore,
  LaneChange,
  LaneState,
  ModelCapacityState,
  RateState,
  TatChange,
} from "../../lambdas/core/ports/capacity-store";

/**
 * The CapacityStore port in memory, with the DynamoDB adapter's semantics (a booking is one
 * conditional update of one lane, a settlement an atomic add), counting the requests a real store
 * would get. `beforeBook` lets a test run another booking between a read and its write.
 */
export class MemoryCapacityStore implements CapacityStore {
  readonly lanes = new Map<string, Map<number, LaneState>>();
  readonly rates = new Map<string, RateState>();
  requests = 0;
  beforeBook?: () => Promise<void>;

  async read(modelId: string): Promise<ModelCapacityState> {
    this.requests += 1;
    const rate = this.rates.get(modelId);
    return { lanes: new Map(this.lanes.get(modelId) ?? []), ...(rate === undefined ? {} : { rate }) };
  }

  async book(modelId: string, lane: number, change: LaneChange): Promise<LaneState | undefined> {
    const hook = this.beforeBook;
    this.beforeBook = undefined;
    await hook?.();
    this.requests += 1;
    const lanes = this.lanes.get(modelId) ?? new Map<number, LaneState>();
    const current = lanes.get(lane);
    const request = applied(current?.requestTatMs, change.request);
    const tokens = applied(current?.tokenTatMs, change.tokens);
    if (request === undefined || tokens === undefined) return undefined;
    const next = { requestTatMs: request, tokenTatMs: tokens };
    lanes.set(lane, next);
    this.lanes.set(modelId, lanes);
    return next;
  }

  async adjustTokens(modelId: string, lane: number, deltaMs: number): Promise<void> {
    this.requests += 1;
    const lanes = this.lanes.get(modelId) ?? new Map<number, LaneState>();
    const current = lanes.get(lane) ?? { requestTatMs: 0, tokenTatMs: 0 };
    lanes.set(lane, { ...current, tokenTatMs: current.tokenTatMs + deltaMs });
    this.lanes.set(modelId, lanes);
  }

  async setRate(modelId: string, expected: RateState | undefined, next: RateState): Promise<boolean> {
    this.requests += 1;
    const current = this.rates.get(modelId);
    const same =
      current === undefined
        ? expected === undefined
        : expected !== undefined &&
          current.factor === expected.factor &&
          current.sinceMs === expected.sinceMs;
    if (!same) return false;
    this.rates.set(modelId, next);
    return true;
  }
}

/** A TAT after a change, as DynamoDB would apply it; undefined when its condition fails. */
function applied(tat: number | undefined, change: TatChange): number | undefined {
  if (change.kind === "reset") return tat === undefined || tat < change.below ? change.to : undefined;
  if (tat === undefined || tat < change.atLeast || tat > change.atMost) return undefined;
  return tat + change.amount;
}
