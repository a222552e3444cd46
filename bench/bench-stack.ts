import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { GoalSnapshot } from "../lambdas/core/goal/goal-record";
import type { ModelQuota } from "../lambdas/core/models/capacity/model-quota";
import { GoalLoopsClient } from "../lib/client/index";
import { type LocalStack, startLocalStack } from "../lib/local/local-stack";
import { followGoal, PROJECT_DIR } from "../test/e2e/local-stack-harness";
import { type DynamoProxy, startDynamoProxy } from "./dynamo-proxy";
import { type FixtureSizes, writeFixtures } from "./fixtures";
import { type S3Proxy, startS3Proxy } from "./s3-proxy";

/** How often `settleQuietly` looks at the local executions (in memory: no request, no I/O). */
const QUIET_POLL_MS = 100;

export interface BenchStack {
  readonly stack: LocalStack;
  readonly client: GoalLoopsClient;
  /** The counting proxy in front of DynamoDB, when asked for (it adds a hop to every request). */
  readonly store: DynamoProxy | undefined;
  /** The counting proxy in front of S3 (the payload bucket), with the one in front of DynamoDB. */
  readonly payloads: S3Proxy | undefined;
  writeFixture(name: string, fixture: unknown): void;
  stop(): Promise<void>;
}

/**
 * The local stack as `npm start` runs it (cdk.out bundles, dynalite in memory, fixture models),
 * synthesized first when cdk.out is stale, with the bench's fixtures in a temporary folder and a
 * counting proxies in front of DynamoDB and S3 when writes are counted. No network: every endpoint is on 127.0.0.1.
 */
export async function startBenchStack(options: {
  fixtures: FixtureSizes;
  contextBudgetTokens: number;
  countWrites: boolean;
  log: (line: string) => void;
  /** More variables for every function (e.g. MODEL_QUOTAS, the governor's quotas). */
  environment?: Record<string, string>;
  /** The account's Bedrock quota the local endpoint enforces for every model (`--model-quota`). */
  modelQuota?: ModelQuota;
}): Promise<BenchStack> {
  const fixturesDir = mkdtempSync(join(tmpdir(), "goal-loops-bench-"));
  writeFixtures(fixturesDir, options.fixtures);
  const store = options.countWrites ? await startDynamoProxy() : undefined;
  const payloads = options.countWrites ? await startS3Proxy() : undefined;
  const stack = await startLocalStack({
    projectDir: PROJECT_DIR,
    synth: true,
    port: 0,
    fixturesDir,
    inMemory: true,
    log: options.log,
    functionLog: () => undefined,
    ...(options.modelQuota === undefined ? {} : { modelQuota: options.modelQuota }),
    environment: {
      ...options.environment,
      ...(store ? { AWS_ENDPOINT_URL_DYNAMODB: store.url } : {}),
      ...(payloads ? { AWS_ENDPOINT_URL_S3: payloads.url } : {}),
      CONTEXT_BUDGET_TOKENS: String(options.contextBudgetTokens),
    },
  });
  if (store) store.target = stack.endpoints.dynamodb;
  if (payloads) payloads.target = stack.endpoints.s3;
  return {
    stack,
    client: new GoalLoopsClient(stack.apiUrl),
    store,
    payloads,
    writeFixture: (name, fixture) =>
      writeFileSync(join(fixturesDir, `${name}.json`), JSON.stringify(fixture)),
    stop: async () => {
      await stack.stop();
      await store?.close();
      await payloads?.close();
      rmSync(fixturesDir, { recursive: true, force: true });
    },
  };
}

/** The local executions (runs) of a goal: their names start with its id. */
export function runsOf(bench: BenchStack, goalId: string) {
  return bench.stack.executions.list().filter((execution) => execution.name.startsWith(goalId));
}

/**
 * Waits for a goal without asking the API while it runs (a poll is an API invocation and a DynamoDB
 * read, which would load the machine being measured and count as the goal's store traffic): it
 * watches the goal's executions in the local Step Functions, then reads the settled goal over the API.
 */
export async function settleQuietly(
  bench: BenchStack,
  goalId: string,
  deadlineMs: number,
): Promise<GoalSnapshot> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const runs = runsOf(bench, goalId);
    if (runs.length > 0 && runs.every((execution) => execution.status !== "RUNNING")) {
      return settle(bench.client, goalId, Math.max(1000, deadline - Date.now()), 100);
    }
    if (Date.now() > deadline) throw new Error(`Goal ${goalId} still runs after ${deadlineMs} ms`);
    await delay(QUIET_POLL_MS);
  }
}

/** Polls a goal until it settles (invariants checked on every snapshot) or the deadline passes. */
export async function settle(
  client: GoalLoopsClient,
  goalId: string,
  deadlineMs: number,
  pollMs = 50,
): Promise<GoalSnapshot> {
  return (await followGoal(client, goalId, { deadlineMs, pollMs })).final;
}
