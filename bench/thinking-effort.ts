import type { ThinkingEffort } from "../lambdas/core/goal/thinking-settings";
import { priceOf } from "../lambdas/core/models/model-prices";
import type { ModelCallRecord } from "../lib/local/bedrock/bedrock-endpoint";
import { type BenchStack, settleQuietly } from "./bench-stack";
import { shortGoalSpec } from "./fixtures";
import { type Figure, info } from "./report";

/** What one goal's reason calls took per iteration at one effort, as the local endpoint answered. */
export interface EffortRun {
  readonly effort: ThinkingEffort;
  readonly status: string;
  readonly iterations: number;
  readonly inputTokensPerIteration: number;
  readonly outputTokensPerIteration: number;
}

function usageOf(record: ModelCallRecord): { input: number; output: number } {
  const usage = record.response?.usage;
  const fields = typeof usage === "object" && usage !== null && !Array.isArray(usage) ? usage : {};
  const input = typeof fields.inputTokens === "number" ? fields.inputTokens : 0;
  const output = typeof fields.outputTokens === "number" ? fields.outputTokens : 0;
  return { input, output };
}

/**
 * The short ReAct goal with `models.thinking.reason.effort` set to `effort`: its reason calls'
 * input and output tokens per iteration. The thinking in them is the endpoint's scripted thinking,
 * whose length grows with the effort the request asks for (lib/local/bedrock/fixture-converse.ts).
 */
export async function runAtEffort(bench: BenchStack, effort: ThinkingEffort): Promise<EffortRun> {
  const spec = shortGoalSpec();
  const accepted = await bench.client.submitGoal({
    ...spec,
    models: { ...spec.models, thinking: { reason: { effort } } },
  });
  const final = await settleQuietly(bench, accepted.goalId, 120_000);
  const reason = bench.stack.bedrock
    .calls()
    .filter((record) => record.goalId === accepted.goalId && record.role === "reason" && !record.error);
  const iterations = Math.max(1, reason.length);
  const total = reason
    .map(usageOf)
    .reduce((sum, usage) => ({ input: sum.input + usage.input, output: sum.output + usage.output }), {
      input: 0,
      output: 0,
    });
  return {
    effort,
    status: final.status,
    iterations: reason.length,
    inputTokensPerIteration: total.input / iterations,
    outputTokensPerIteration: total.output / iterations,
  };
}

/** Output tokens and model cost per iteration at each effort, the reason role on each tier's model. */
export function effortFigures(runs: readonly EffortRun[], models: { heavy: string; fast: string }): Figure[] {
  const section = "thinking effort (short ReAct goal)";
  const efforts = runs.map((run) => run.effort).join(" / ");
  const figures: Figure[] = [
    info(
      section,
      `reason output tokens per iteration, effort ${efforts}`,
      runs.map((run) => run.outputTokensPerIteration.toFixed(0)).join(" / "),
      "",
      `thinking included, as Bedrock counts it; scripted thinking lengths; ${runs.map((run) => `${run.effort}: ${run.status}, ${run.iterations} calls`).join("; ")}`,
    ),
  ];
  for (const [tier, modelId] of [
    ["heavy", models.heavy],
    ["fast", models.fast],
  ] as const) {
    const price = priceOf(modelId);
    const costs = runs.map(
      (run) =>
        (run.inputTokensPerIteration * price.input + run.outputTokensPerIteration * price.output) / 1e6,
    );
    figures.push(
      info(
        section,
        `model cost per iteration, effort ${efforts}, reason on ${tier} (${modelId})`,
        costs.map((cost) => `$${cost.toFixed(6)}`).join(" / "),
        "",
        "input uncached (scripted models take no cache points)",
      ),
    );
  }
  return figures;
}
