/** One lane of a model's quota: when its requests and its tokens are next free, at the current rate (epoch ms). */
export interface LaneState {
  readonly requestTatMs: number;
  readonly tokenTatMs: number;
}

/** The governor's rate after throttles: a share of the quota, recovering linearly to the whole. */
export interface RateState {
  /** The share of the quota in use right after the last decrease, from MIN_RATE_FACTOR to 1. */
  readonly factor: number;
  /** When it was lowered (epoch ms). */
  readonly sinceMs: number;
}

/** How one TAT of a lane moves for a booking: set when idle, raised when busy (conditions inclusive). */
export type TatChange =
  | { readonly kind: "reset"; readonly below: number; readonly to: number }
  | { readonly kind: "add"; readonly amount: number; readonly atLeast: number; readonly atMost: number };

/** A booking's change of both TATs of one lane. */
export interface LaneChange {
  readonly request: TatChange;
  readonly tokens: TatChange;
}

/** What the capacity governor keeps per model: its lanes (by index) and its rate after throttles. */
export interface ModelCapacityState {
  /** Lanes never booked are absent (they read as free). */
  readonly lanes: ReadonlyMap<number, LaneState>;
  readonly rate?: RateState;
}

/**
 * Where the capacity governor keeps its state, shared by every step of the deployment (DynamoDB
 * deployed and locally). Every write is conditional or commutative: no lock item, no read of one
 * caller blocks another.
 */
export interface CapacityStore {
  /** The model's lanes and rate, in one read. */
  read(modelId: string): Promise<ModelCapacityState>;
  /**
   * Books lane `lane` with one atomic conditional write (see TatChange in
   * models/capacity/capacity-lanes.ts): each TAT reset when it is below `below`, or raised by
   * `amount` when it is from `atLeast` to `atMost`. The lane's TATs after it, or undefined when a
   * condition failed (the caller reads again).
   */
  book(modelId: string, lane: number, change: LaneChange): Promise<LaneState | undefined>;
  /** Moves a lane's token TAT by `deltaMs` (settling a reservation; an atomic add, no condition). */
  adjustTokens(modelId: string, lane: number, deltaMs: number): Promise<void>;
  /** Writes the rate `next` if it still is `expected`; false when another throttle lowered it first. */
  setRate(modelId: string, expected: RateState | undefined, next: RateState): Promise<boolean>;
}
