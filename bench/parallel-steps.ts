import { fourIndependentStepsFixture, fourIndependentStepsGoal } from "../test/e2e/parallel-steps-fixture";
import { type BenchStack, runsOf, settleQuietly } from "./bench-stack";

/** Each execute turn's latency at the local Bedrock endpoint: the model dominates, as on Bedrock. */
const EXECUTE_LATENCY_MS = 1000;

/** The wall time of a plan's steps run as one batch, over one step's. */
export interface ParallelStepsRun {
  readonly oneStepMs: number;
  readonly batchMs: number;
  readonly steps: number;
  readonly status: string;
}

/** One plan step of the same shape as the batch's, alone. */
function oneStepFixture() {
  const four = fourIndependentStepsFixture(EXECUTE_LATENCY_MS);
  const plan = four.plan[0];
  const steps = plan?.toolUse.input.steps.slice(0, 1) ?? [];
  return {
    plan: [{ ...plan, toolUse: { ...plan?.toolUse, input: { steps } } }],
    execute: four.execute.slice(0, 1),
  };
}

/** From the goal's first run starting to its last run ending, as the local Step Functions saw them. */
async function goalWallMs(
  bench: BenchStack,
  goal: Record<string, unknown>,
): Promise<{ ms: number; status: string }> {
  const accepted = await bench.client.submitGoal(goal);
  const final = await settleQuietly(bench, accepted.goalId, 120_000);
  const runs = runsOf(bench, accepted.goalId);
  await Promise.all(runs.map((execution) => execution.done));
  const start = Math.min(...runs.map((execution) => execution.startDate.getTime()));
  const end = Math.max(...runs.map((execution) => execution.stopDate?.getTime() ?? Number.NaN));
  return { ms: end - start, status: final.status };
}

/**
 * A plan of four independent steps (each execute turn `EXECUTE_LATENCY_MS` at the endpoint) against
 * the same plan with one step: the batch makes the four turns at once, so its wall time stays near
 * one step's. Each goal runs twice and the second run counts (the first warms the Lambda workers).
 */
export async function measureParallelSteps(bench: BenchStack): Promise<ParallelStepsRun> {
  bench.writeFixture("bench-one-step", oneStepFixture());
  bench.writeFixture("bench-four-steps", fourIndependentStepsFixture(EXECUTE_LATENCY_MS));
  const one = fourIndependentStepsGoal("bench-one-step");
  const onlyFirstCheck = { ...one, successChecks: (one.successChecks as unknown[]).slice(0, 1) };
  const four = fourIndependentStepsGoal("bench-four-steps");
  await goalWallMs(bench, onlyFirstCheck);
  const oneStep = await goalWallMs(bench, onlyFirstCheck);
  await goalWallMs(bench, four);
  const batch = await goalWallMs(bench, four);
  return {
    oneStepMs: oneStep.ms,
    batchMs: batch.ms,
    steps: 4,
    status: `${oneStep.status} / ${batch.status}`,
  };
}
