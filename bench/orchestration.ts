import type { BenchStack } from "./bench-stack";
import { runsOf, settleQuietly } from "./bench-stack";
import { criticalPathCount } from "./critical-path";
import { longGoalFixture, longGoalSpec } from "./fixtures";

/**
 * A round trip's latency the counting proxy adds while the critical path is measured: the local
 * DynamoDB answers one request in well under a millisecond on the same thread as the proxy, so two
 * requests a step sends together could otherwise look like one after the other.
 */
const ROUND_TRIP_MS = 5;

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
  bench.store.delayMs = ROUND_TRIP_MS;
  const accepted = await bench.client.submitGoal(longGoalSpec(iterations, fixture));
  const final = await settleQuietly(bench, accepted.goalId, 240_000).finally(() => {
    if (bench.store) bench.store.delayMs = 0;
  });
  const runs = runsOf(bench, accepted.goalId);
  await Promise.all(runs.map((run) => run.done));
  // The goal's own partition, and the partitions no goal owns that its steps wait on too (the
  // tenant's limits and spend, the capacity governor's): the only goal running here is this one.
  const requests = bench.store.requests.filter(
    (request) => request.goalId === accepted.goalId || request.goalId === undefined,
  );
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

export interface IterationSpans {
  /** Each iteration's VerifyAndReason Task, entered to exited: the Lambda invocation as Step Functions waits on it. */
  readonly taskMs: readonly number[];
  /** From one VerifyAndReason's exit to the next one's entry: the interpreter's transitions (NextAction). */
  readonly betweenMs: readonly number[];
}

/** Where a goal's iterations spent their time, from its runs' histories (whole ms). */
export function iterationSpans(bench: BenchStack, goalId: string): IterationSpans {
  const taskMs: number[] = [];
  const betweenMs: number[] = [];
  for (const run of runsOf(bench, goalId)) {
    let entered: number | undefined;
    let exited: number | undefined;
    for (const event of run.history()) {
      const name = event.details?.value.name;
      if (name !== ITERATION_STATE) continue;
      if (event.type === "TaskStateEntered") {
        if (exited !== undefined) betweenMs.push(+event.timestamp - exited);
        entered = +event.timestamp;
      }
      if (event.type === "TaskStateExited" && entered !== undefined) {
        exited = +event.timestamp;
        taskMs.push(exited - entered);
      }
    }
  }
  return { taskMs, betweenMs };
}
