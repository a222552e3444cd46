import type { BenchStack } from "./bench-stack";
import { runsOf, settleQuietly } from "./bench-stack";
import { criticalPathCount } from "./critical-path";
import { longGoalFixture, longGoalSpec } from "./fixtures";

/** The ReAct step every iteration starts with (react-definition.ts). */
const ITERATION_STATE = "VerifyAndReason";

export interface CriticalPathRun {
  readonly status: string;
  readonly steps: number;
  /** Sequential DynamoDB round trips each iteration waited on (see critical-path.ts). */
  readonly rounds: readonly number[];
  /** Every DynamoDB request in each iteration's window. */
  readonly requests: readonly number[];
  readonly paths: readonly string[];
  readonly transitions: number;
  readonly executions: number;
}

/**
 * One ReAct goal of `fixture`'s turns (no gate, zero model latency) on a stack whose DynamoDB
 * requests the counting proxy times: the round trips each iteration waits on, and its transitions.
 */
export async function measureCriticalPath(
  bench: BenchStack,
  iterations: number,
  fixture: string,
): Promise<CriticalPathRun> {
  if (bench.store === undefined) throw new Error("the critical path needs the counting DynamoDB proxy");
  const accepted = await bench.client.submitGoal(longGoalSpec(iterations, fixture));
  const final = await settleQuietly(bench, accepted.goalId, 240_000);
  const runs = runsOf(bench, accepted.goalId);
  await Promise.all(runs.map((run) => run.done));
  const requests = bench.store.requests.filter((request) => request.goalId === accepted.goalId);
  const count = criticalPathCount(runs, requests, ITERATION_STATE);
  return {
    status: final.status,
    steps: final.steps,
    ...count,
    transitions: runs.reduce((sum, run) => sum + run.transitions, 0),
    executions: runs.length,
  };
}

export interface LatencyShareRun {
  readonly status: string;
  readonly wallMs: number;
  readonly modelCalls: number;
  readonly modelMs: number;
}

/**
 * The long goal's fixture at `iterations`, every model call answered after `latencyMs`: the goal's
 * wall time from its POST to its last run's end, against the model's share of it (calls × latency).
 */
export async function measureLatencyShare(
  bench: BenchStack,
  iterations: number,
  latencyMs: number,
): Promise<LatencyShareRun> {
  const name = `bench-latency-${iterations}`;
  const { reason, summarize } = longGoalFixture(iterations);
  bench.writeFixture(name, {
    reason: reason.map((turn) => ({ ...turn, latencyMs })),
    summarize: summarize.map((turn) => ({ ...turn, latencyMs })),
  });
  const posted = Date.now();
  const accepted = await bench.client.submitGoal(longGoalSpec(iterations, name));
  const final = await settleQuietly(bench, accepted.goalId, 120_000);
  const runs = runsOf(bench, accepted.goalId);
  await Promise.all(runs.map((run) => run.done));
  const ended = Math.max(...runs.map((run) => run.stopDate?.getTime() ?? Number.NaN));
  const modelCalls = bench.stack.bedrock.calls().filter((call) => call.goalId === accepted.goalId).length;
  return { status: final.status, wallMs: ended - posted, modelCalls, modelMs: modelCalls * latencyMs };
}
