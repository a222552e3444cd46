/**
 * capacity/: model capacity is a wait, never a failure (DESIGN §4). A model's quota as the
 * deployment declares it and as Bedrock counts it (model-quota.ts: requests and tokens per minute,
 * the reservation at the start, the output burndown at settlement), the pure arithmetic that paces
 * calls within it in the order they asked (capacity-lanes.ts: a few GCRA lanes per model, priority
 * as how far ahead a call may book, the rate after throttles), and the governor every step shares
 * (capacity-governor.ts: acquire, settle, throttled; CapacityWaitError when a call must wait).
 * Not here: where its state is kept (ports/capacity-store.ts, answered by the DynamoDB adapter),
 * how a step waits (loop/capacity-wait.ts and the state machine's WaitForCapacity state), or the
 * local endpoint that enforces a quota (lib/local/bedrock).
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./capacity-governor";
export * from "./capacity-lanes";
export * from "./model-quota";
