import { minCacheableTokens } from "../lambdas/core/models/context/context-settings";
import { priceOf } from "../lambdas/core/models/model-prices";
import type { LongGoalRun } from "./long-goal";
import { type MeasuredCall, measureCalls } from "./prompt-tokens";
import { atLeast, atMost, type Figure, info } from "./report";

/** The deployment's model tiers: `reason` runs on heavy, `summarize` on fast, by default. */
export interface Tiers {
  readonly heavy: string;
  readonly fast: string;
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length === 0
    ? Number.NaN
    : sorted.length % 2
      ? (sorted[middle] ?? Number.NaN)
      : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

/** The model each role of the long goal runs on by default. */
export function modelOfRole(role: string, tiers: Tiers): string {
  return role === "summarize" ? tiers.fast : tiers.heavy;
}

/** The minimum cacheable prefix of the model `role` runs on (Infinity for one that caches nothing). */
export function minCacheTokensOf(tiers: Tiers): (role: string) => number {
  return (role) => minCacheableTokens(modelOfRole(role, tiers)) ?? Number.POSITIVE_INFINITY;
}

/**
 * What the calls' input costs in USD on the models their roles run on: fresh tokens at the input
 * price, cache reads and writes at the model's cache prices (`cached` false: every token fresh).
 */
export function inputCostUsd(calls: readonly MeasuredCall[], tiers: Tiers, cached = true): number {
  return sum(
    calls.map((call) => {
      const price = priceOf(modelOfRole(call.role, tiers));
      const read = cached ? call.cache.read : 0;
      const written = cached ? call.cache.written : 0;
      const fresh = call.tokens - read - written;
      return (fresh * price.input + read * price.cacheRead + written * price.cacheWrite) / 1e6;
    }),
  );
}

/**
 * The long goal's tokens (thinking sent back counted), its prompt cache (at the request's own cache
 * points, with the minimum of the model each role runs on by default) and what its input is billed
 * beside the naive prompt's.
 */
export function tokenFigures(run: LongGoalRun, tiers: Tiers, budget: (name: string) => number): Figure[] {
  const section = "tokens (long ReAct goal)";
  const figures: Figure[] = [];
  if (run.status !== "completed" || run.reason.length < 200) {
    figures.push(info(section, "long goal", `${run.status} after ${run.steps} steps`));
  }
  for (const iteration of [10, 50, 100, 200]) {
    const call = run.reason[iteration - 1];
    figures.push(
      info(
        section,
        `input tokens, call ${iteration}`,
        call?.tokens ?? Number.NaN,
        "",
        `naive ${run.naive[iteration - 1] ?? "n/a"}`,
      ),
    );
    figures.push(
      info(section, `naive full scratchpad, call ${iteration}`, run.naive[iteration - 1] ?? Number.NaN),
    );
  }
  const at10 = run.reason[9]?.tokens ?? Number.NaN;
  const at200 = run.reason[199]?.tokens ?? Number.NaN;
  figures.push(atMost(section, "input tokens at 200 / at 10", at200 / at10, budget("tokensAt200OverAt10")));
  const total = sum(run.calls.map((call) => call.tokens));
  const naive = sum(run.naive);
  figures.push(info(section, "total input tokens (reason + summarize), thinking sent back included", total));
  figures.push(info(section, "naive total input tokens, every step's thinking included", naive));
  figures.push(atMost(section, "total / naive", total / naive, budget("totalOverNaive")));
  const summarize = run.calls.filter((call) => call.role === "summarize");
  figures.push(
    info(
      section,
      "summarize calls",
      summarize.length,
      "",
      `fast tier, ${sum(summarize.map((c) => c.tokens))} input tokens`,
    ),
  );
  const naiveUsd = sum(run.naive.map((tokens) => (tokens * priceOf(tiers.heavy).input) / 1e6));
  figures.push(
    atMost(
      section,
      "billed input / the naive prompt's (cache reads and writes priced)",
      inputCostUsd(run.calls, tiers) / naiveUsd,
      budget("billedInputOverNaive"),
      "",
      `reason on ${tiers.heavy}, summarize on ${tiers.fast}; the naive prompt uncached on ${tiers.heavy}`,
    ),
  );
  const later = run.reason.filter((call) => call.call > 0);
  const shares = later.map((call) => call.cache.read / call.tokens);
  figures.push(
    info(
      section,
      "cacheable prefix share, reason calls after the first (all tokens)",
      sum(later.map((c) => c.cache.read)) / sum(later.map((c) => c.tokens)),
    ),
  );
  figures.push(
    atLeast(
      section,
      "cacheable prefix share per reason call, median",
      median(shares),
      budget("cacheableShareMedian"),
    ),
  );
  figures.push(
    atLeast(
      section,
      "cacheable prefix share per reason call, minimum",
      Math.min(...shares),
      budget("cacheableShareMin"),
      "",
    ),
  );
  // What a call adds to the previous call's prompt when it reads all of it from the cache: its turn
  // sent back, the tool result and the next state. A call's share is at most 1 - growth / prompt, and
  // the growth is written to the cache once at the write rate: what bounds the share and the bill.
  const growth = run.reason.flatMap((call, index) => {
    const before = run.reason[index - 1];
    return before !== undefined && call.cache.read === before.tokens ? [call.tokens - before.tokens] : [];
  });
  figures.push(
    info(
      section,
      "tokens a reason call adds to the previous call's prompt, median (its turn, the tool result, the next state)",
      median(growth),
    ),
  );
  const lowCalls = later.filter((call) => call.cache.read / call.tokens < budget("cacheableShareMin"));
  // A call whose opening message differs from the previous call's is the first after a compaction.
  const opening = (call: MeasuredCall | undefined) => JSON.stringify(call?.messages[0]?.content[0] ?? null);
  const afterCompaction = (call: MeasuredCall) =>
    opening(call) !== opening(run.reason[run.reason.indexOf(call) - 1]);
  figures.push(
    info(
      section,
      "reason calls under the minimum share",
      lowCalls.length,
      "",
      lowCalls.length
        ? `calls ${lowCalls.map((call) => call.call).join(", ")}; ${lowCalls.filter(afterCompaction).length} of them the first after a compaction`
        : undefined,
    ),
  );
  const minimum = minCacheableTokens(tiers.heavy);
  figures.push(
    info(
      section,
      `reason calls whose cacheable prefix is below the model's minimum (${minimum} tokens on ${tiers.heavy})`,
      run.reason.filter((call) => call.cache.belowMinimum).length / Math.max(1, run.reason.length),
      "",
      `cache points below it: ${sum(run.reason.map((c) => c.cache.pointsBelowMinimum))} of ${sum(run.reason.map((c) => c.cache.points))}`,
    ),
  );
  const samePrefix = later.every((call) => call.samePrefix);
  figures.push(info(section, "stable prefix byte-identical on every reason call", samePrefix ? "yes" : "NO"));
  return figures;
}

/** The same goal priced with the reason role on the fast tier: its minimum decides what caches. */
export function fastTierFigures(run: LongGoalRun, tiers: Tiers): Figure[] {
  const section = "tokens (long ReAct goal)";
  const minimum = minCacheableTokens(tiers.fast);
  const reason = measureCalls(
    run.records.filter((record) => record.role === "reason"),
    () => minimum ?? Number.POSITIVE_INFINITY,
  );
  const onFast: Tiers = { heavy: tiers.fast, fast: tiers.fast };
  const naiveUsd = sum(run.naive.map((tokens) => (tokens * priceOf(tiers.fast).input) / 1e6));
  const summarize = run.calls.filter((call) => call.role === "summarize");
  return [
    info(
      section,
      `billed input / the naive prompt's, reason on ${tiers.fast}`,
      (inputCostUsd(reason, onFast) + inputCostUsd(summarize, onFast)) / naiveUsd,
    ),
    info(
      section,
      `reason calls whose cacheable prefix is below the minimum with reason on ${tiers.fast} (${minimum} tokens)`,
      reason.filter((call) => call.cache.belowMinimum).length / Math.max(1, reason.length),
      "",
      `cache points below it: ${sum(reason.map((c) => c.cache.pointsBelowMinimum))} of ${sum(reason.map((c) => c.cache.points))}`,
    ),
  ];
}

/**
 * Model cost per ReAct iteration (input with its cache reads and writes, output with its thinking),
 * the reason role on each tier, summarize on fast: the reason calls measured again with the fast
 * model's cache minimum for the fast tier.
 */
export function modelCostFigures(run: LongGoalRun, tiers: Tiers): Figure[] {
  const section = "cost per ReAct iteration";
  const summarize = run.calls.filter((call) => call.role === "summarize");
  const outputUsd = (calls: readonly MeasuredCall[], onTiers: Tiers) =>
    sum(calls.map((call) => (call.outputTokens * priceOf(modelOfRole(call.role, onTiers)).output) / 1e6));
  const onFast: Tiers = { heavy: tiers.fast, fast: tiers.fast };
  const fastReason = measureCalls(
    run.records.filter((record) => record.role === "reason"),
    () => minCacheableTokens(tiers.fast) ?? Number.POSITIVE_INFINITY,
  );
  return (
    [
      ["heavy", tiers, run.reason],
      ["fast", onFast, fastReason],
    ] as const
  ).map(([tier, onTiers, reason]) =>
    info(
      section,
      `model (reason on ${tier}: ${onTiers.heavy})`,
      (inputCostUsd([...reason, ...summarize], onTiers) + outputUsd([...reason, ...summarize], onTiers)) /
        Math.max(1, run.reason.length),
      "USD",
      "input at the request's cache points (reads and writes priced), output with its thinking; summarize on fast",
    ),
  );
}

/** Each role's thinking per reason iteration: output tokens and their cost on the role's default model. */
function thinkingPerIteration(run: LongGoalRun, role: string, tiers: Tiers) {
  const calls = run.calls.filter((call) => call.role === role);
  const tokens = sum(calls.map((call) => call.thinkingTokens)) / Math.max(1, run.reason.length);
  const effort = calls
    .map((call) => call.body as { additionalModelRequestFields?: { output_config?: { effort?: string } } })
    .map((body) => body.additionalModelRequestFields?.output_config?.effort ?? "high (model default)")
    .at(0);
  return {
    tokens,
    usd: (tokens * priceOf(modelOfRole(role, tiers)).output) / 1e6,
    effort,
    calls: calls.length,
  };
}

/**
 * Thinking output per iteration and its cost, per role, at the deployment's default efforts beside
 * the same goal at `low` (thinking lengths are the local endpoint's scripted ones, longer at higher
 * effort: the ratio is the endpoint's, a recorded real run gives the model's).
 */
export function thinkingFigures(defaults: LongGoalRun, low: LongGoalRun, tiers: Tiers): Figure[] {
  const section = "thinking (long ReAct goal)";
  return ["reason", "summarize"].flatMap((role) => {
    const at = thinkingPerIteration(defaults, role, tiers);
    const atLow = thinkingPerIteration(low, role, tiers);
    return [
      info(
        section,
        `${role}: thinking output tokens per iteration, default effort / low`,
        `${at.tokens.toFixed(0)} / ${atLow.tokens.toFixed(0)}`,
        "",
        `default effort ${at.effort}; ${at.calls} / ${atLow.calls} calls; goals ${defaults.status} / ${low.status}`,
      ),
      info(
        section,
        `${role}: thinking cost per iteration on ${modelOfRole(role, tiers)}, default effort / low`,
        `$${at.usd.toFixed(6)} / $${atLow.usd.toFixed(6)}`,
      ),
    ];
  });
}
