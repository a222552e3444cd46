/**
 * `npm run bench`: every performance figure (docs/performance.md) on the local runtime, with scripted
 * fixtures (no network), each beside its budget from bench/budgets.json. Prints a table, writes
 * bench/results.json, exits 1 when a budget is missed. `-- --markdown` also prints the table for docs/performance.md;
 * `-- --cli-only` measures the CLI's start alone (a few seconds) and prints it without writing results.json;
 * `-- --capacity-only` adds the capacity burst (about two minutes) to it, likewise;
 * `-- --bundles-only` measures the bundles alone (synthesizing cdk.out when stale), likewise;
 * `-- --orchestration-only` measures what the local runtime adds around the steps alone (a minute
 * or two): transitions and DynamoDB round trips per ReAct iteration on a counted stack, then on a
 * plain one the zero-latency goal (local ÷ in-process), approvals and the share of a 1 s-latency
 * goal's wall time that is not the model's, likewise.
 * `-- --tokens-only` runs only the counted stack's long goals (the 200-iteration goal at the default
 * thinking efforts, then at `low`; about two minutes, no CLI build) and prints their tokens, cache,
 * thinking, goal store and model cost figures, likewise.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { DEFAULT_CONTEXT_SETTINGS } from "../lambdas/core/models/context/context-settings";
import { loadCloudAssembly } from "../lib/local/cdk-out/cdk-out";
import { type BenchStack, runsOf, settleQuietly, startBenchStack } from "./bench-stack";
import { type BundleFigure, measureBundles } from "./bundles";
import { type BurstRun, measureCapacityBurst, waitSpread } from "./capacity-burst";
import { measureCliStart } from "./cli-start";
import { FIXTURES, LARGE_FILE, largePayloadGoalSpec, longGoalSpec } from "./fixtures";
import { InProcessBaseline } from "./in-process";
import { LIVE_EVENTS_FIXTURE, measureLiveEvents } from "./live-events";
import {
  type LongGoalRun,
  payloadBytesPerIteration,
  runLongGoal,
  storeBytesByKind,
  storeBytesPerIteration,
} from "./long-goal";
import {
  type CriticalPathRun,
  iterationSpans,
  type LatencyShareRun,
  measureCriticalPath,
  measureLatencyShare,
} from "./orchestration";
import { measureParallelSteps } from "./parallel-steps";
import { atLeast, atMost, type Figure, info, markdown, table } from "./report";
import {
  iterationTimes,
  measureApprovalLatency,
  measureThroughput,
  measureTransitions,
  median,
  p95,
} from "./scenarios";
import { type EffortRun, effortFigures, runAtEffort } from "./thinking-effort";
import {
  fastTierFigures,
  minCacheTokensOf,
  modelCostFigures,
  type Tiers,
  thinkingFigures,
  tokenFigures,
} from "./token-figures";

const BENCH_DIR = import.meta.dirname;
const budgets = JSON.parse(readFileSync(join(BENCH_DIR, "budgets.json"), "utf8")) as Record<string, number>;
const prices = JSON.parse(readFileSync(join(BENCH_DIR, "prices.json"), "utf8")) as Record<string, number>;
/** A number from one of the bench's JSON files; a missing or misspelled key stops the bench, naming it. */
const numberIn =
  (file: string, table: Record<string, number>) =>
  (name: string): number => {
    const value = table[name];
    if (typeof value !== "number") throw new Error(`${file} has no number '${name}'`);
    return value;
  };
const budget = numberIn("bench/budgets.json", budgets);
const price = numberIn("bench/prices.json", prices);

/**
 * The long goal's iterations, and the budget (in the Lambdas' compact-table tokens) that makes it
 * compact: every 8 steps (the stride), keeping the default 2 recent steps, so its prompts run from
 * about 1,500 to 6,000 tokens (docs/performance.md, "The prompt cache's three figures").
 */
const LONG_ITERATIONS = 200;
const LONG_CONTEXT_BUDGET = 4400;
const OVERHEAD_ITERATIONS = 60;
/** The goal whose wall time is set against its model calls' latency (each call answered after LATENCY_MS). */
const LATENCY_ITERATIONS = 10;
const LATENCY_MS = 1000;
/**
 * The counted stack lays out the scripted models' reason prompts with cache points, as a Claude
 * model's: the long goal's requests carry them, the local endpoint checks them as Bedrock does, and
 * the bench prices them at the default models' cache rates.
 */
const COUNTED_ENVIRONMENT = {
  CONTEXT_CACHE_MODELS: [...DEFAULT_CONTEXT_SETTINGS.cacheModels, "scripted:"].join(","),
};
const SHORT_ITERATIONS = 5;
const APPROVALS = 10;
const CONCURRENT_GOALS = 50;
const LIVE_EVENT_SAMPLES = 30;
const IMPORT_RUNS = 7;
const CLI_RUNS = 11;
/** The capacity burst: goals posted at once, and the quota they share (2 model calls each). */
const BURST_GOALS = 60;
const BURST_QUOTA = { requestsPerMinute: 60, burstSeconds: 2 } as const;

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
const figures: Figure[] = [];
const fixtures = {
  longIterations: LONG_ITERATIONS,
  overheadIterations: OVERHEAD_ITERATIONS,
  shortIterations: SHORT_ITERATIONS,
};

function storeFigures(run: LongGoalRun, smallGoalS3Requests: number): void {
  const section = "goal store (long goal)";
  const at10 = storeBytesPerIteration(run, 10);
  const at200 = storeBytesPerIteration(run, 200);
  const kinds = (k: number) =>
    Object.entries(storeBytesByKind(run, k))
      .map(([kind, bytes]) => `${kind} ${bytes}`)
      .join(", ");
  figures.push(info(section, "DynamoDB bytes written per iteration at 10", at10, "B", kinds(10)));
  figures.push(info(section, "S3 bytes written per iteration at 10", payloadBytesPerIteration(run, 10), "B"));
  figures.push(
    atMost(
      section,
      "DynamoDB bytes written per iteration at 200",
      at200,
      budget("storeBytesPerIterationAt200"),
      "B",
      kinds(199),
    ),
  );
  figures.push(
    info(section, "S3 bytes written per iteration at 200", payloadBytesPerIteration(run, 200), "B"),
  );
  figures.push(
    atMost(
      section,
      "DynamoDB bytes per iteration at 200 / at 10",
      at200 / at10,
      budget("storeBytesAt200OverAt10"),
    ),
  );
  const s3Methods = new Map<string, number>();
  for (const request of run.payloadRequests) {
    s3Methods.set(request.method, (s3Methods.get(request.method) ?? 0) + 1);
  }
  figures.push(
    info(
      section,
      "S3 requests, whole goal",
      run.payloadRequests.length,
      "",
      [...s3Methods].map(([method, count]) => `${method} ${count}`).join(", ") || undefined,
    ),
  );
  figures.push(
    atMost(
      section,
      "S3 requests, goals without large payloads (long goal, pattern goals)",
      smallGoalS3Requests,
      budget("s3RequestsSmallGoal"),
      "",
      "every S3 request on the stack before the large-payload goal, whichever goal it names",
    ),
  );
  const perIteration = (count: number) => count / Math.max(1, run.steps);
  const byOperation = new Map<string, number>();
  for (const request of run.requests) {
    byOperation.set(request.operation, (byOperation.get(request.operation) ?? 0) + 1);
  }
  figures.push(
    info(
      section,
      "DynamoDB requests per iteration, all functions",
      perIteration(run.requests.length),
      "",
      [...byOperation]
        .sort((a, b) => b[1] - a[1])
        .map(([operation, count]) => `${operation} ${perIteration(count).toFixed(1)}`)
        .join(", "),
    ),
  );
  figures.push(
    info(
      section,
      "bytes written, whole goal (artifacts excluded)",
      sum(run.writes.filter((w) => !/^WSV?#/.test(w.sortKey)).map((w) => w.bytes)),
      "B",
    ),
  );
}

/** What the large-payload goal wrote where (for information: the split between DynamoDB and S3). */
interface LargePayloadRun {
  readonly status: string;
  readonly steps: number;
  readonly dynamoBytes: number;
  readonly dynamoWorkspaceBytes: number;
  readonly s3Bytes: number;
  readonly s3Puts: number;
  readonly s3Gets: number;
}

/** One goal that writes LARGE_FILE (600 KiB) with workspace_write and is done, on the counted stack. */
async function runLargePayloadGoal(bench: BenchStack): Promise<LargePayloadRun> {
  const accepted = await bench.client.submitGoal(largePayloadGoalSpec());
  const final = await settleQuietly(bench, accepted.goalId, 120_000);
  await Promise.all(runsOf(bench, accepted.goalId).map((execution) => execution.done));
  const writes = (bench.store?.writes ?? []).filter((write) => write.goalId === accepted.goalId);
  const s3 = (bench.payloads?.requests ?? []).filter((request) => request.goalId === accepted.goalId);
  return {
    status: final.status,
    steps: final.steps,
    dynamoBytes: sum(writes.map((write) => write.bytes)),
    dynamoWorkspaceBytes: sum(writes.filter((w) => /^WSV?#/.test(w.sortKey)).map((w) => w.bytes)),
    s3Bytes: sum(s3.filter((request) => request.method === "PUT").map((request) => request.bytes)),
    s3Puts: s3.filter((request) => request.method === "PUT").length,
    s3Gets: s3.filter((request) => request.method === "GET").length,
  };
}

/** The large-payload goal's figures, or its error (informational: no budget, the bench goes on). */
function largePayloadFigures(run: LargePayloadRun | string): void {
  const section = "goal store (large-payload goal)";
  const what = `one ${LARGE_FILE.bytes / 1024} KiB file (${LARGE_FILE.path}) by workspace_write, then done`;
  if (typeof run === "string") {
    figures.push(info(section, "goal", "failed", "", `${what}: ${run.slice(0, 200)}`));
    return;
  }
  figures.push(info(section, "goal", `${run.status} after ${run.steps} steps`, "", what));
  figures.push(
    info(
      section,
      "DynamoDB bytes written, whole goal",
      run.dynamoBytes,
      "B",
      `workspace items ${run.dynamoWorkspaceBytes} B`,
    ),
  );
  figures.push(
    info(section, "S3 bytes written, whole goal", run.s3Bytes, "B", `${run.s3Puts} PUT, ${run.s3Gets} GET`),
  );
}

function costFigures(
  run: LongGoalRun,
  lambdaPerIteration: number,
  models: { heavy: string; fast: string },
): void {
  const section = "cost per ReAct iteration";
  const transitions = run.transitions / Math.max(1, run.steps);
  const sfn = transitions * price("stepFunctionsPerTransitionUsd");
  const lambda =
    lambdaPerIteration *
    (price("lambdaPerRequestUsd") + (0.5 * price("lambdaBilledMs") * price("lambdaPerGbSecondUsd")) / 1000);
  const writeUnits = storeBytesPerIteration(run, 200, 50, (write) =>
    Math.max(1, Math.ceil(write.bytes / 1024)),
  );
  const dynamo = writeUnits * price("dynamoDbPerWriteUnitUsd");
  figures.push(info(section, "Step Functions", sfn, "USD", `${transitions.toFixed(2)} transitions`));
  figures.push(
    info(
      section,
      "Lambda",
      lambda,
      "USD",
      `${lambdaPerIteration.toFixed(1)} invocations, 512 MB, ${price("lambdaBilledMs")} ms each`,
    ),
  );
  figures.push(info(section, "DynamoDB writes", dynamo, "USD", `${writeUnits.toFixed(1)} write units`));
  figures.push(...modelCostFigures(run, models));
}

/** `goal-loops --help` from the package as installed, beside `node -e 0` (bench/cli-start.ts). */
function capacityFigures(run: BurstRun): void {
  const where = `${run.posted} ReAct goals at once, ${BURST_QUOTA.requestsPerMinute} requests a minute, ${BURST_QUOTA.burstSeconds} s burst`;
  figures.push(
    atLeast(
      "capacity",
      `completed / posted, ${where}`,
      run.completed / run.posted,
      budget("burstCompletedShare"),
    ),
    atMost(
      "capacity",
      "wall time / the quota's floor (model calls / rate)",
      run.wallMs / run.floorMs,
      budget("burstWallOverFloor"),
      "",
      `${(run.wallMs / 1000).toFixed(1)} s for ${run.modelCalls} calls; floor ${(run.floorMs / 1000).toFixed(1)} s`,
    ),
    atMost(
      "capacity",
      "throttled attempts / model calls",
      run.throttled / Math.max(1, run.modelCalls),
      budget("burstThrottledPerCall"),
      "",
      `${run.throttled} throttled`,
    ),
    info(
      "capacity",
      "capacity waits, p95 / median (calls that waited)",
      waitSpread(run.waits),
      "",
      `${run.waits.length} waits; median ${median(run.waits).toFixed(0)} s, p95 ${p95(run.waits).toFixed(0)} s`,
    ),
    info("capacity", "DynamoDB requests the governor adds per model call", run.governorRequestsPerCall),
  );
}

async function cliFigures(): Promise<void> {
  const { buildCli } = await import("../lib/build/build-cli");
  await buildCli({ projectDir: join(BENCH_DIR, ".."), log });
  const cli = measureCliStart(join(BENCH_DIR, ".."), CLI_RUNS);
  figures.push(
    atMost(
      "cli",
      `goal-loops --help, installed package, median of ${CLI_RUNS}`,
      cli.helpMs,
      budget("cliHelpMedianMs"),
      "ms",
      `node -e 0: ${cli.nodeMs.toFixed(0)} ms`,
    ),
  );
  figures.push(info("cli", `node -e 0, median of ${CLI_RUNS} (the floor)`, cli.nodeMs, "ms"));
}

/** Many goals at once on one model quota, on a stack of its own. */
async function capacityStage(): Promise<void> {
  log(
    `(${elapsed()}) capacity: ${BURST_GOALS} goals at once on ${BURST_QUOTA.requestsPerMinute} requests a minute …`,
  );
  capacityFigures(
    await measureCapacityBurst({
      goals: BURST_GOALS,
      ...BURST_QUOTA,
      fixtures,
      contextBudgetTokens: LONG_CONTEXT_BUDGET,
    }),
  );
}

/**
 * Each bundle's size, the median size, and each cold import against the floor measured beside it:
 * the SDK packages that bundle loads, loaded alone (with the DynamoDB document client and the
 * Bedrock runtime client built when it loads them, as every step does). A ratio of two processes
 * run one after the other holds on a loaded machine where milliseconds do not.
 */
function bundleFigures(bundles: readonly BundleFigure[]): void {
  const section = "bundles";
  for (const bundle of bundles) {
    figures.push(
      atMost(
        section,
        `${bundle.functionName} size`,
        bundle.bytes / 1024,
        // VerifyAndReason verifies, reasons and acts in one invocation: its own budget (budgets.json $reasons).
        budget(
          bundle.functionName.includes("VerifyAndReason") ? "bundleBytesVerifyAndReason" : "bundleBytes",
        ) / 1024,
        "KB",
      ),
    );
  }
  figures.push(
    atMost(
      section,
      `median bundle size, ${bundles.length} bundles`,
      median(bundles.map((bundle) => bundle.bytes)) / 1024,
      budget("bundleBytesMedian") / 1024,
      "KB",
    ),
  );
  for (const bundle of bundles) {
    const packages = bundle.sdkPackages.map((name) => name.replace("@aws-sdk/", "")).join(", ");
    if (bundle.sdkPackages.length === 0) {
      // A function that loads no SDK package (the OpenAPI document) has no floor to divide by: its
      // floor is an empty import of a few ms. Its import is printed, in ms, without a budget.
      figures.push(
        info(
          section,
          `${bundle.functionName} cold import (loads no SDK package), median of ${IMPORT_RUNS}`,
          bundle.coldImportMs,
          "ms",
        ),
      );
      continue;
    }
    figures.push(
      atMost(
        section,
        `${bundle.functionName} cold import / its SDK packages alone, median of ${IMPORT_RUNS}`,
        bundle.overSdkFloor,
        budget("coldImportOverSdkFloor"),
        "",
        `${bundle.coldImportMs.toFixed(0)} / ${bundle.sdkFloorMs.toFixed(0)} ms (${packages || "no SDK"}); inside: @aws-sdk/* ${bundle.sdkImportMs.toFixed(0)} ms, own code ${bundle.ownImportMs.toFixed(0)} ms`,
      ),
    );
  }
}

/** The bundles of cdk.out: their sizes and cold imports against the SDK floor of the same run. */
function bundleStage(): void {
  log(`(${elapsed()}) bundles …`);
  const functions = loadCloudAssembly(join(BENCH_DIR, "..", "cdk.out")).functions;
  bundleFigures(measureBundles(functions, IMPORT_RUNS, join(BENCH_DIR, "..")));
}

/** The DynamoDB round trips an ungated ReAct iteration waits on, and (orchestration-only) its transitions. */
function criticalPathFigures(run: CriticalPathRun, iterations: number, withTransitions: boolean): void {
  const section = "orchestration";
  const goal = `${iterations}-iteration goal, ${run.status} after ${run.steps} steps`;
  if (withTransitions) {
    figures.push(
      atMost(
        section,
        `state transitions per iteration, react, ${iterations}-iteration goal without a gate`,
        run.transitions / Math.max(1, run.steps),
        budget("reactTransitionsPerIteration"),
        "",
        `${run.transitions} transitions in ${run.executions} runs, incl. its start and end`,
      ),
    );
  }
  const sorted = [...run.rounds].sort((a, b) => a - b);
  figures.push(
    atMost(
      section,
      "DynamoDB round trips on the critical path of an ungated ReAct iteration, median",
      median(run.rounds),
      budget("reactCriticalPathRoundTrips"),
      "",
      `mean ${(sum(run.rounds) / Math.max(1, run.rounds.length)).toFixed(1)}, max ${sorted.at(-1) ?? "n/a"}; ` +
        `all requests per iteration ${(sum(run.requests) / Math.max(1, run.requests.length)).toFixed(1)}; ${goal}`,
    ),
  );
  // One iteration of the median's length, round by round: what the rounds are spent on.
  const typical = run.rounds.indexOf(median(run.rounds));
  figures.push(info(section, "the critical path of one such iteration", run.paths[typical] ?? "n/a"));
}

/** What the goal at 1 s per model call spent outside the model. */
function latencyShareFigures(run: LatencyShareRun): void {
  figures.push(
    atMost(
      "orchestration",
      `orchestration share of wall time, ${LATENCY_ITERATIONS}-iteration ReAct goal, model latency ${LATENCY_MS} ms`,
      (run.wallMs - run.modelMs) / run.wallMs,
      budget("orchestrationShareAt1sLatency"),
      "",
      `(${run.wallMs.toFixed(0)} - ${run.modelCalls} calls x ${LATENCY_MS} ms) / ${run.wallMs.toFixed(0)} ms; goal ${run.status}`,
    ),
  );
}

/**
 * On the plain stack: the zero-latency goal twice (fresh, then warmed), the approvals and the
 * latency goal. Returns the per-iteration times of the two zero-latency goals.
 */
async function latencyStage(
  plain: BenchStack,
): Promise<{ local: number[]; freshStack: number[]; inProcess: number[] }> {
  const overheadGoal = async () => {
    const accepted = await plain.client.submitGoal(longGoalSpec(OVERHEAD_ITERATIONS, FIXTURES.overhead));
    await settleQuietly(plain, accepted.goalId, 240_000);
    await Promise.all(runsOf(plain, accepted.goalId).map((run) => run.done));
    return {
      times: await iterationTimes(plain, accepted.goalId),
      spans: iterationSpans(plain, accepted.goalId),
    };
  };
  // The same goal twice: the first on the fresh stack, where the Lambda workers' code is still
  // being compiled (its iterations are reported, not budgeted), the second on the warmed stack.
  const freshStack = (await overheadGoal()).times;
  // The in-process baseline warmed too (its first run compiles the steps' code), then local and
  // in-process goals in turn, twice: the machine's load drifts, and each ratio's two sides share it.
  const baseline = await InProcessBaseline.start({
    bedrockRuntimeUrl: plain.stack.endpoints.bedrockRuntime,
    contextBudgetTokens: LONG_CONTEXT_BUDGET,
  });
  const inTurn = async () => {
    await baseline.run(OVERHEAD_ITERATIONS);
    const warmed = await overheadGoal();
    const first = await baseline.run(OVERHEAD_ITERATIONS);
    const again = await overheadGoal();
    const second = await baseline.run(OVERHEAD_ITERATIONS);
    return { warmed, again, inProcess: [...first, ...second] };
  };
  const { warmed, again, inProcess } = await inTurn().finally(() => baseline.close());
  const local = [...warmed.times, ...again.times];
  figures.push(
    info(
      "overhead",
      "warmed iteration: VerifyAndReason task entered -> exited / exited -> next entered (Step Functions), median",
      `${median(warmed.spans.taskMs).toFixed(0)} / ${median(warmed.spans.betweenMs).toFixed(0)}`,
      "ms",
      `p95 ${p95(warmed.spans.taskMs).toFixed(0)} / ${p95(warmed.spans.betweenMs).toFixed(0)} ms`,
    ),
  );
  const approvals = await measureApprovalLatency(plain, APPROVALS);
  figures.push(
    atMost(
      "approval",
      `decision received -> next step started, p95 of ${approvals.warm.length} goals on the warmed stack`,
      p95(approvals.warm),
      budget("approvalLatencyP95Ms"),
      "ms",
      `median ${median(approvals.warm).toFixed(0)} ms; each: ${approvals.warm.map((ms) => ms.toFixed(0)).join(", ")}`,
    ),
    info(
      "approval",
      "of which decision received -> AwaitApproval answered (API, EventBridge, resume handler), median / p95",
      `${median(approvals.toAnswered).toFixed(0)} / ${p95(approvals.toAnswered).toFixed(0)}`,
      "ms",
      "the rest is Step Functions: the task's answer to Act's start",
    ),
    info(
      "approval",
      "decision received -> next step started, the stack's first approval (cold sandboxes)",
      approvals.cold,
      "ms",
    ),
  );
  latencyShareFigures(await measureLatencyShare(plain, LATENCY_ITERATIONS, LATENCY_MS));
  return { local, freshStack, inProcess };
}

/** The local runtime's figures against the in-process baseline measured beside them. */
function overheadFigures({
  local,
  freshStack,
  inProcess,
}: {
  local: readonly number[];
  freshStack: readonly number[];
  inProcess: readonly number[];
}): void {
  figures.push(
    atMost(
      "overhead",
      "local runtime / same core steps in one process, per iteration (medians, same run)",
      median(local) / median(inProcess),
      budget("localOverInProcess"),
      "",
      `${median(local).toFixed(1)} / ${median(inProcess).toFixed(1)} ms`,
    ),
  );
  figures.push(
    info(
      "overhead",
      "local runtime per iteration, zero-latency model, warmed stack, median / p95",
      `${median(local).toFixed(1)} / ${p95(local).toFixed(1)}`,
      "ms",
    ),
  );
  figures.push(
    info(
      "overhead",
      "first goal on the fresh stack (code still compiling), median / p95",
      `${median(freshStack).toFixed(1)} / ${p95(freshStack).toFixed(1)}`,
      "ms",
    ),
  );
  figures.push(
    info(
      "overhead",
      "same core steps in one process, warmed, median / p95",
      `${median(inProcess).toFixed(1)} / ${p95(inProcess).toFixed(1)}`,
      "ms",
    ),
  );
  figures.push(
    info(
      "overhead",
      "local minus in-process (median): Step Functions, Lambda sandboxes, HTTP",
      median(local) - median(inProcess),
      "ms",
    ),
  );
}

/** A bench stack on the bench's fixtures and context budget, its functions' logs dropped. */
function startStack(options: {
  countWrites: boolean;
  environment?: Record<string, string>;
}): Promise<BenchStack> {
  return startBenchStack({
    fixtures,
    contextBudgetTokens: LONG_CONTEXT_BUDGET,
    log: () => undefined,
    ...options,
  });
}

/** --orchestration-only: what the local runtime adds around the steps, on two stacks of their own. */
async function orchestrationStage(): Promise<void> {
  log(`(${elapsed()}) orchestration: counted stack …`);
  const counted = await startStack({ countWrites: true });
  try {
    // The long goal's fixture, as the full run's transitions figure: its start and end spread as thin.
    criticalPathFigures(
      await measureCriticalPath(counted, LONG_ITERATIONS, FIXTURES.long),
      LONG_ITERATIONS,
      true,
    );
  } finally {
    await counted.stop();
  }
  log(`(${elapsed()}) orchestration: plain stack …`);
  const plain = await startStack({ countWrites: false });
  try {
    overheadFigures(await latencyStage(plain));
  } finally {
    await plain.stop();
  }
}

/** The stack whose DynamoDB writes are counted and whose scripted prompts carry cache points. */
function startCountedStack(): Promise<BenchStack> {
  log("starting the local stack (synthesizes cdk.out when it is stale) …");
  return startStack({ countWrites: true, environment: COUNTED_ENVIRONMENT });
}

/** The long goal alone on the counted stack: its tokens, cache, store, thinking and model cost figures. */
async function tokensStage(): Promise<void> {
  const counted = await startCountedStack();
  const models = configuredTiers(counted);
  let goals: LongGoals;
  try {
    goals = await runLongGoals(counted, models);
  } finally {
    await counted.stop();
  }
  longGoalFigures(goals, models);
  storeFigures(goals.run, counted.payloads?.requests.length ?? Number.NaN);
  costFigures(goals.run, Number.NaN, models);
}

/** The long goal at the deployment's thinking efforts, then the same goal at `low`. */
interface LongGoals {
  readonly run: LongGoalRun;
  readonly low: LongGoalRun;
}

async function runLongGoals(counted: BenchStack, models: Tiers): Promise<LongGoals> {
  const minCacheTokens = { minCacheTokensOf: minCacheTokensOf(models) };
  log(`stack up (${elapsed()}); long goal: ${LONG_ITERATIONS} iterations …`);
  const run = await runLongGoal(counted, LONG_ITERATIONS, 480_000, minCacheTokens);
  log(`long goal ${run.status} in ${(run.wallMs / 1000).toFixed(0)} s (${elapsed()}); again at effort low …`);
  const low = await runLongGoal(counted, LONG_ITERATIONS, 480_000, { ...minCacheTokens, effort: "low" });
  log(`long goal at low ${low.status} in ${(low.wallMs / 1000).toFixed(0)} s (${elapsed()})`);
  return { run, low };
}

/** The tokens, cache and thinking figures of the long goals. */
function longGoalFigures(goals: LongGoals, models: Tiers): void {
  figures.push(...tokenFigures(goals.run, models, budget));
  figures.push(...fastTierFigures(goals.run, models));
  figures.push(...thinkingFigures(goals.run, goals.low, models));
}

/** The deployment's configured tiers, as the model steps' environment holds them. */
function configuredTiers(bench: BenchStack): { heavy: string; fast: string } {
  const tiers = bench.stack.model.functions.find((fn) => fn.environment.HEAVY_MODEL_ID)?.environment;
  if (tiers?.HEAVY_MODEL_ID === undefined || tiers.FAST_MODEL_ID === undefined) {
    throw new Error(
      "no function in cdk.out has HEAVY_MODEL_ID and FAST_MODEL_ID: the model steps are missing",
    );
  }
  return { heavy: tiers.HEAVY_MODEL_ID, fast: tiers.FAST_MODEL_ID };
}

/** Prints the figures gathered so far, and their notes, without writing results.json (a partial run). */
function printPartial(machine: string): void {
  const notes = figures.flatMap((figure) => (figure.note ? [`${figure.name}: ${figure.note}`] : []));
  process.stdout.write(
    `${table(figures)}\n\n${notes.map((note) => `${note}\n`).join("")}\nmachine: ${machine}\n`,
  );
  if (figures.some((figure) => figure.met === false || figure.met === null)) process.exitCode = 1;
}

async function main(): Promise<void> {
  const machine = `${cpus().length} cores (${cpus()[0]?.model.trim() ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.versions.node}`;
  log(`machine: ${machine}`);

  // The long goal's tokens alone: no CLI build, no second stack.
  if (process.argv.includes("--tokens-only")) {
    await tokensStage();
    return printPartial(machine);
  }
  // 0. The CLI's start, first, on a machine not yet busy with the bench's stacks.
  await cliFigures();
  // Partial runs print only: bench/results.json keeps the last full run.
  if (process.argv.includes("--cli-only")) return printPartial(machine);
  if (process.argv.includes("--capacity-only")) {
    await capacityStage();
    return printPartial(machine);
  }
  if (process.argv.includes("--bundles-only")) {
    const { ensureSynthesized } = await import("../lib/local/cdk-out/ensure-synthesized");
    await ensureSynthesized({
      projectDir: join(BENCH_DIR, ".."),
      outDir: join(BENCH_DIR, "..", "cdk.out"),
      log,
    });
    bundleStage();
    return printPartial(machine);
  }
  if (process.argv.includes("--orchestration-only")) {
    await orchestrationStage();
    return printPartial(machine);
  }

  // 1. The long goal, transitions per pattern, on a stack whose DynamoDB writes are counted.
  const counted = await startCountedStack();
  const models = configuredTiers(counted);
  let goals: LongGoals;
  let lambdaPerIteration = Number.NaN;
  let smallGoalS3Requests = Number.NaN;
  let largePayload: LargePayloadRun | string = "not run";
  try {
    goals = await runLongGoals(counted, models);
    const { run } = goals;
    log(`(${elapsed()}) patterns …`);
    const patterns = await measureTransitions(counted, counted.writeFixture);
    // Every S3 request so far came from goals without large payloads: the budget is none at all.
    smallGoalS3Requests = counted.payloads?.requests.length ?? Number.NaN;
    log(`(${elapsed()}) large-payload goal …`);
    largePayload = await runLargePayloadGoal(counted).catch((error: unknown) => String(error));
    // The budget is per iteration in a long run; the 4-iteration goals also pay their start and end.
    figures.push(
      atMost(
        "orchestration",
        `state transitions per iteration, react, ${LONG_ITERATIONS}-iteration goal without a gate`,
        run.transitions / Math.max(1, run.steps),
        budget("reactTransitionsPerIteration"),
        "",
        `${run.transitions} transitions in ${run.executions} runs`,
      ),
    );
    for (const pattern of patterns) {
      const name = `state transitions per iteration, ${pattern.pattern}, 4-iteration goal incl. start and end`;
      if (pattern.status !== "measured") {
        figures.push(info("orchestration", name, pattern.status, "", pattern.detail));
        continue;
      }
      figures.push(info("orchestration", name, pattern.perIteration ?? Number.NaN));
      if (pattern.pattern === "react") {
        lambdaPerIteration = (pattern.lambdaInvocations ?? 0) / Math.max(1, pattern.iterations ?? 1);
      }
    }
    log(`(${elapsed()}) critical path of a ReAct iteration …`);
    criticalPathFigures(
      await measureCriticalPath(counted, OVERHEAD_ITERATIONS, FIXTURES.overhead),
      OVERHEAD_ITERATIONS,
      false,
    );
  } finally {
    await counted.stop();
  }
  longGoalFigures(goals, models);
  storeFigures(goals.run, smallGoalS3Requests);
  largePayloadFigures(largePayload);
  costFigures(goals.run, lambdaPerIteration, models);

  // 2. Latency and throughput on a stack without the counting proxy.
  log(`(${elapsed()}) second stack: overhead, approvals, throughput …`);
  const plain = await startStack({ countWrites: false });
  try {
    overheadFigures(await latencyStage(plain));
    // A goal that waits gets one event committed at a time; a long poll (or the open stream) already waiting hands it over.
    plain.writeFixture(LIVE_EVENTS_FIXTURE.name, LIVE_EVENTS_FIXTURE.turns);
    const live = await measureLiveEvents(plain.stack, LIVE_EVENT_SAMPLES);
    figures.push(
      atMost(
        "live events",
        "event committed -> waiting long poll answers, p95",
        p95(live.longPoll),
        budget("longPollP95Ms"),
        "ms",
        `median ${median(live.longPoll).toFixed(0)} ms, ${live.longPoll.length} events`,
      ),
    );
    figures.push(
      info(
        "live events",
        "event committed -> open SSE stream delivers, median / p95",
        `${median(live.stream).toFixed(0)} / ${p95(live.stream).toFixed(0)}`,
        "ms",
      ),
    );
    const efforts: EffortRun[] = [await runAtEffort(plain, "low"), await runAtEffort(plain, "high")];
    figures.push(...effortFigures(efforts, models));
    const throughput = await measureThroughput(plain, CONCURRENT_GOALS);
    figures.push(
      info(
        "throughput",
        `goals completed per minute, ${CONCURRENT_GOALS} concurrent ${SHORT_ITERATIONS}-iteration goals`,
        throughput.goalsPerMinute,
        "",
        `${throughput.completed}/${CONCURRENT_GOALS} in ${throughput.seconds.toFixed(1)} s`,
      ),
    );
    const parallel = await measureParallelSteps(plain);
    figures.push(
      atMost(
        "plan_execute",
        `wall time of ${parallel.steps} independent steps run as one batch / one step (each execute turn 1 s)`,
        parallel.batchMs / parallel.oneStepMs,
        budget("parallelBatchOverOneStep"),
        "",
        `${parallel.batchMs} / ${parallel.oneStepMs} ms; goals ${parallel.status}`,
      ),
    );
  } finally {
    await plain.stop();
  }
  // 3. Many goals at once on one model quota, on a stack of its own.
  await capacityStage();

  // 4. Bundles, last, with nothing else running.
  bundleStage();

  const missed = figures.filter((figure) => figure.met === false || figure.met === null);
  const results = {
    machine,
    date: new Date().toISOString(),
    seconds: Math.round((performance.now() - started) / 1000),
    budgets,
    figures,
  };
  writeFileSync(join(BENCH_DIR, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`${table(figures)}\n\nmachine: ${machine}; ${results.seconds} s\n`);
  if (process.argv.includes("--markdown")) process.stdout.write(`\n${markdown(figures)}\n`);
  if (missed.length > 0) {
    process.stdout.write(
      `\n${missed.length} budget(s) missed or not measured: ${missed.map((figure) => figure.name).join("; ")}\n`,
    );
    process.exitCode = 1;
  }
}

await main();
