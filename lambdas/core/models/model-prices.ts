import { UnknownModelPriceError } from "../goal/errors";
import { type GoalChange, goalEvent, settle } from "../goal/goal-change";
import { EMPTY_USAGE, type GoalRecord, type Usage } from "../goal/goal-record";
import { clip } from "../goal/text";
import type { ModelTurn, TokenUsage } from "../ports/model-client";
import * as z from "../zod";
import priceFile from "./model-prices.json" with { type: "json" };
import type { ModelRole } from "./model-roles";

/** USD per one million tokens of each kind. */
export const ModelPriceSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    input: z.number().check(z.gte(0)),
    output: z.number().check(z.gte(0)),
    cacheRead: z.number().check(z.gte(0)),
    cacheWrite: z.number().check(z.gte(0)),
  }),
);
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

export const PriceTableSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    $comment: z.optional(z.string()),
    models: z.record(z.string().check(z.minLength(1)), ModelPriceSchema),
  }),
);

/**
 * The price table from model-prices.json. PriceTableSchema checks it when the tests run
 * (test/unit/models/bundled-settings.test.ts), not at every cold start: the file is compiled into
 * the bundle and cannot change after the build, and parsing it when the module loaded was the
 * largest part of a model step's own import (about 6 ms, the process's first zod parse).
 */
export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = priceFile.models;

/** The price of `modelId`: its own entry, else the longest `prefix*` entry it starts with. */
export function priceOf(modelId: string): ModelPrice {
  const exact = MODEL_PRICES[modelId];
  if (exact) return exact;
  const wildcard = Object.keys(MODEL_PRICES)
    .filter((key) => key.endsWith("*") && modelId.startsWith(key.slice(0, -1)))
    .sort((a, b) => b.length - a.length)[0];
  const price = wildcard === undefined ? undefined : MODEL_PRICES[wildcard];
  if (!price) throw new UnknownModelPriceError(modelId);
  return price;
}

/** Rounds away binary floating-point dust (0.1 + 0.2) at a billionth of a dollar. */
const roundUsd = (usd: number) => Math.round(usd * 1e9) / 1e9;

/** What one model call cost in USD. Cache reads and writes are priced apart from plain input. */
export function costOf(modelId: string, usage: TokenUsage): number {
  const price = priceOf(modelId);
  const perMillion =
    usage.inputTokens * price.input +
    usage.outputTokens * price.output +
    usage.cacheReadTokens * price.cacheRead +
    usage.cacheWriteTokens * price.cacheWrite;
  return roundUsd(perMillion / 1_000_000);
}

function addUsage(total: Usage, usage: TokenUsage, costUsd: number): Usage {
  return {
    inputTokens: total.inputTokens + usage.inputTokens,
    outputTokens: total.outputTokens + usage.outputTokens,
    cacheReadTokens: total.cacheReadTokens + usage.cacheReadTokens,
    cacheWriteTokens: total.cacheWriteTokens + usage.cacheWriteTokens,
    modelCalls: total.modelCalls + 1,
    costUsd: roundUsd(total.costUsd + costUsd),
  };
}

/** The most of a call's reasoning an event or the snapshot shows. */
export const REASONING_SUMMARY_CHARS = 2000;

/**
 * What a turn's reasoning says, for a person watching: the text of its reasoning blocks (the
 * summary the model returned, when it returned one), bounded. Never the signature or redacted
 * bytes: they are the model's, not for display. Empty when the turn has no reasoning text.
 */
export function reasoningSummaryOf(turn: Pick<ModelTurn, "content">): string {
  const texts = turn.content.flatMap((block) =>
    "reasoningContent" in block && "reasoningText" in block.reasoningContent
      ? [block.reasoningContent.reasoningText.text.trim()]
      : [],
  );
  return clip(texts.filter((text) => text !== "").join("\n\n"), REASONING_SUMMARY_CHARS);
}

/**
 * Adds one model call's tokens and cost to the goal's totals and to its role's, and its reasoning
 * summary to the `model.usage` event (and, when there is one, to the role's latest in the record).
 * Thinking is counted as Bedrock reports it: inside `outputTokens`, billed at the output price.
 * Accepted in every status: a call already paid for is counted even if the goal stopped meanwhile.
 */
export function recordModelUsage(
  record: GoalRecord,
  role: ModelRole,
  turn: Pick<ModelTurn, "modelId" | "usage" | "content">,
  now: Date,
): GoalChange {
  const { modelId, usage } = turn;
  const costUsd = costOf(modelId, usage);
  const reasoningSummary = reasoningSummaryOf(turn);
  const at = now.toISOString();
  const waited = record.activity;
  const next: GoalRecord = {
    ...record,
    updatedAt: at,
    // A call was made: a shortfall noted before it is answered (the budget was raised).
    costShortfall: undefined,
    // … and the capacity it waited for, if it waited, was there.
    activity: undefined,
    usage: addUsage(record.usage, usage, costUsd),
    usageByRole: {
      ...record.usageByRole,
      [role]: addUsage(record.usageByRole[role] ?? EMPTY_USAGE, usage, costUsd),
    },
    ...(reasoningSummary === ""
      ? {}
      : {
          reasoningByRole: { ...record.reasoningByRole, [role]: { summary: reasoningSummary, modelId, at } },
        }),
  };
  return settle(next, [
    ...(waited === undefined
      ? []
      : [
          goalEvent(next, "capacity.acquired", now, {
            role: waited.role,
            model: waited.model,
            since: waited.since,
            waitedSeconds: Math.max(0, Math.round((now.getTime() - Date.parse(waited.since)) / 1000)),
            waits: waited.attempts,
          }),
        ]),
    goalEvent(next, "model.usage", now, { role, modelId, ...usage, costUsd, reasoningSummary }),
  ]);
}
