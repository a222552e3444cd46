import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MODEL_QUOTAS_ENV } from "../lambdas/core/models/capacity/model-quota";
import { PROJECT_DIR } from "../test/e2e/local-stack-harness";
import { type BenchStack, settleQuietly, startBenchStack } from "./bench-stack";
import type { FixtureSizes } from "./fixtures";
import { median, p95 } from "./scenarios";

/** The model the burst's goals name: paced by the governor, throttled by the endpoint past its quota. */
const BURST_MODEL = "scripted:capacity-burst";

export interface BurstOptions {
  readonly goals: number;
  /** The quota, as the deployment declares it and as the local endpoint enforces it. */
  readonly requestsPerMinute: number;
  readonly burstSeconds: number;
  readonly fixtures: FixtureSizes;
  readonly contextBudgetTokens: number;
}

export interface BurstRun {
  readonly posted: number;
  readonly completed: number;
  readonly modelCalls: number;
  readonly wallMs: number;
  /** The quota's floor for the calls made: calls ÷ rate. */
  readonly floorMs: number;
  /** Attempts the endpoint refused for the quota (ThrottlingException). */
  readonly throttled: number;
  /** How long each call that waited for capacity waited, seconds (its `capacity.acquired` events). */
  readonly waits: readonly number[];
  /** DynamoDB requests to the governor's partitions (CAPACITY#…) per model call. */
  readonly governorRequestsPerCall: number;
}

/**
 * Many goals at once on one model quota (capacity is a wait, never a failure): `goals` ReAct goals of
 * two model calls each are posted together against a quota the governor knows (`models.quotas`, as
 * MODEL_QUOTAS) and the local endpoint enforces as Bedrock would. Measured on a stack of its own,
 * DynamoDB behind the counting proxy.
 */
export async function measureCapacityBurst(options: BurstOptions): Promise<BurstRun> {
  const quota = {
    requestsPerMinute: options.requestsPerMinute,
    tokensPerMinute: 1_000_000_000,
    burstSeconds: options.burstSeconds,
  };
  const bench = await startBenchStack({
    fixtures: options.fixtures,
    contextBudgetTokens: options.contextBudgetTokens,
    countWrites: true,
    log: () => undefined,
    environment: { [MODEL_QUOTAS_ENV]: JSON.stringify({ [BURST_MODEL]: quota }) },
    modelQuota: quota,
  });
  try {
    return await burst(bench, options);
  } finally {
    await bench.stop();
  }
}

async function burst(bench: BenchStack, options: BurstOptions): Promise<BurstRun> {
  const example = JSON.parse(
    readFileSync(join(PROJECT_DIR, "examples", "goals", "write-release-summary.json"), "utf8"),
  ) as Record<string, unknown>;
  bench.writeFixture(
    "capacity-burst",
    JSON.parse(readFileSync(join(PROJECT_DIR, "examples", "fixtures", "write-release-summary.json"), "utf8")),
  );
  const started = performance.now();
  const accepted = await Promise.all(
    Array.from({ length: options.goals }, (_, index) =>
      bench.client.submitGoal({
        ...example,
        objective: `Write release summary ${index} for goal-loops 2.0 to summary.md in the workspace.`,
        models: { default: BURST_MODEL },
      }),
    ),
  );
  const finals = await Promise.all(accepted.map(({ goalId }) => settleQuietly(bench, goalId, 600_000)));
  const wallMs = performance.now() - started;
  const modelCalls = finals.reduce((sum, final) => sum + final.usage.modelCalls, 0);
  const waits: number[] = [];
  for (const { goalId } of accepted) {
    for (const event of await allEventsOf(bench, goalId)) {
      if (event.type === "capacity.acquired" && typeof event.waitedSeconds === "number")
        waits.push(event.waitedSeconds);
    }
  }
  const governorRequests = (bench.store?.requests ?? []).filter(
    (request) => request.partition === "CAPACITY",
  ).length;
  return {
    posted: options.goals,
    completed: finals.filter((final) => final.status === "completed").length,
    modelCalls,
    wallMs,
    floorMs: (modelCalls / options.requestsPerMinute) * 60_000,
    throttled: bench.stack.bedrock.quotaRefusals(),
    waits,
    governorRequestsPerCall: governorRequests / Math.max(1, modelCalls),
  };
}

async function allEventsOf(bench: BenchStack, goalId: string) {
  const items = [];
  let after = 0;
  for (;;) {
    const page = await bench.client.listEvents(goalId, after);
    items.push(...page.items);
    if (page.items.length === 0 || page.nextSeq === after) return items;
    after = page.nextSeq;
  }
}

/** The spread of the waits: p95 ÷ median of the calls that waited (NaN when none did). */
export function waitSpread(waits: readonly number[]): number {
  const middle = median(waits);
  return waits.length === 0 || middle === 0 ? Number.NaN : p95(waits) / middle;
}
