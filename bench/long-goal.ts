import type { ThinkingEffort } from "../lambdas/core/goal/thinking-settings";
import type { ModelCallRecord } from "../lib/local/bedrock/bedrock-endpoint";
import type { BenchStack } from "./bench-stack";
import { runsOf, settleQuietly } from "./bench-stack";
import type { StoreRequest, StoreWrite } from "./dynamo-proxy";
import { longGoalSpec } from "./fixtures";
import { type MeasuredCall, measureCalls, naiveTokens } from "./prompt-tokens";
import type { PayloadRequest } from "./s3-proxy";

export interface LongGoalRun {
  readonly goalId: string;
  readonly status: string;
  readonly steps: number;
  readonly wallMs: number;
  readonly calls: readonly MeasuredCall[];
  /** Reason calls in order; index i is iteration i + 1. */
  readonly reason: readonly MeasuredCall[];
  readonly naive: readonly number[];
  readonly writes: readonly StoreWrite[];
  /** Every DynamoDB request naming the goal, by the functions (the API is not asked while it runs). */
  readonly requests: readonly StoreRequest[];
  /** Every S3 request naming the goal (`GOAL/<goalId>/…`): none for a goal without large payloads. */
  readonly payloadRequests: readonly PayloadRequest[];
  /** When each step was logged (ms, the proxy's clock), index i is step i + 1. */
  readonly stepTimes: readonly number[];
  /** State transitions of every run (execution) of the goal. */
  readonly transitions: number;
  readonly executions: number;
  readonly outputTokens: number;
  /** Every Converse request of the goal, as the local endpoint recorded it (to measure again). */
  readonly records: readonly ModelCallRecord[];
}

export interface LongGoalOptions {
  /** The minimum cacheable prefix of the model each role runs on by default (the cache the bench prices). */
  readonly minCacheTokensOf: (role: string) => number;
  /** Each role's thinking effort (GoalSpec `models.thinking`); absent: the deployment's defaults. */
  readonly effort?: ThinkingEffort;
}

/** Runs the long ReAct goal to completion on the bench stack and collects what it sent and wrote. */
export async function runLongGoal(
  bench: BenchStack,
  iterations: number,
  deadlineMs: number,
  options: LongGoalOptions,
): Promise<LongGoalRun> {
  const started = performance.now();
  const spec = longGoalSpec(iterations);
  const { effort } = options;
  const accepted = await bench.client.submitGoal(
    effort === undefined
      ? spec
      : { ...spec, models: { ...spec.models, thinking: { reason: { effort }, summarize: { effort } } } },
  );
  const final = await settleQuietly(bench, accepted.goalId, deadlineMs);
  const wallMs = performance.now() - started;
  const { goalId } = accepted;
  // Executions drain their event logs after the last state; wait for the counters to settle.
  const runs = runsOf(bench, goalId);
  await Promise.all(runs.map((execution) => execution.done));
  const records = bench.stack.bedrock.calls().filter((record) => record.goalId === goalId);
  const calls = measureCalls(records, options.minCacheTokensOf);
  const reason = calls.filter((call) => call.role === "reason").sort((a, b) => a.call - b.call);
  const writes = (bench.store?.writes ?? []).filter((write) => write.goalId === goalId);
  const requests = (bench.store?.requests ?? []).filter((request) => request.goalId === goalId);
  const payloadRequests = (bench.payloads?.requests ?? []).filter((request) => request.goalId === goalId);
  const stepTimes = writes.filter((write) => write.sortKey.startsWith("STEP#")).map((write) => write.at);
  return {
    goalId,
    status: final.status,
    steps: final.steps,
    wallMs,
    calls,
    reason,
    naive: naiveTokens(reason),
    writes,
    requests,
    payloadRequests,
    stepTimes,
    transitions: runs.reduce((sum, execution) => sum + execution.transitions, 0),
    executions: runs.length,
    outputTokens: final.usage.outputTokens,
    records,
  };
}

/**
 * The goal's writes by iteration: iteration k (index k) is every write after step k-1 was logged, up
 * to and including the log of step k (checkpoints, events, the goal item, the step; workspace files,
 * the artifacts and the file versions a write replaced, kept for compensation, excluded). Writes
 * after the last logged step belong to no iteration.
 */
function writesByIteration(run: LongGoalRun): StoreWrite[][] {
  const iterations: StoreWrite[][] = [[]];
  let current: StoreWrite[] = [];
  for (const write of run.writes) {
    if (write.sortKey.startsWith("WS#") || write.sortKey.startsWith("WSV#")) continue;
    current.push(write);
    if (write.sortKey.startsWith("STEP#")) {
      iterations.push(current);
      current = [];
    }
  }
  return iterations;
}

/**
 * Bytes written to the goal store in iteration k (see writesByIteration), averaged over the
 * `window` iterations ending at k.
 */
export function storeBytesPerIteration(
  run: LongGoalRun,
  k: number,
  window = 5,
  measure: (write: StoreWrite) => number = (write) => write.bytes,
): number {
  const picked = writesByIteration(run)
    .slice(Math.max(1, k - window + 1), k + 1)
    .map((writes) => writes.reduce((sum, write) => sum + measure(write), 0));
  return picked.length === 0 ? Number.NaN : picked.reduce((sum, value) => sum + value, 0) / picked.length;
}

/** Which item kinds the bytes of iteration k went to (for the report's explanation). */
export function storeBytesByKind(run: LongGoalRun, k: number): Record<string, number> {
  const kinds: Record<string, number> = {};
  for (const write of writesByIteration(run)[k] ?? []) {
    const kind = write.sortKey.split("#")[0] || "?";
    kinds[kind] = (kinds[kind] ?? 0) + write.bytes;
  }
  return kinds;
}

/**
 * Bytes put to S3 (the payload bucket) in iteration k, on the proxies' shared clock: every PUT
 * after step k-1 was logged, up to the log of step k (a body is put before the item that points at
 * it), averaged over the `window` iterations ending at k, as storeBytesPerIteration.
 */
export function payloadBytesPerIteration(run: LongGoalRun, k: number, window = 5): number {
  const bounds = [Number.NEGATIVE_INFINITY, ...run.stepTimes];
  const picked: number[] = [];
  for (let iteration = Math.max(1, k - window + 1); iteration <= k; iteration += 1) {
    const from = bounds[iteration - 1];
    const to = bounds[iteration];
    if (from === undefined || to === undefined) continue;
    picked.push(
      run.payloadRequests
        .filter((request) => request.method === "PUT" && request.at > from && request.at <= to)
        .reduce((sum, request) => sum + request.bytes, 0),
    );
  }
  return picked.length === 0 ? Number.NaN : picked.reduce((sum, value) => sum + value, 0) / picked.length;
}
