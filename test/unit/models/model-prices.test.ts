import { describe, expect, it } from "vitest";
import { UnknownModelPriceError } from "../../../lambdas/core/goal/errors";
import { costOf, MODEL_PRICES, priceOf, recordModelUsage } from "../../../lambdas/core/models/model-prices";
import { buildGoal, frozen, NOW } from "../goal/support";

const MILLION = { inputTokens: 1_000_000, outputTokens: 1_000_000, cacheReadTokens: 0, cacheWriteTokens: 0 };

describe("costOf", () => {
  it.each([
    ["us.anthropic.claude-sonnet-4-5-20250929-v1:0", 18],
    ["anthropic.claude-sonnet-4-5-20250929-v1:0", 18],
    ["us.anthropic.claude-haiku-4-5-20251001-v1:0", 6],
    ["anthropic.claude-haiku-4-5-20251001-v1:0", 6],
    ["amazon.nova-lite-v1:0", 0.3],
    ["us.amazon.nova-lite-v1:0", 0.3],
    ["amazon.nova-micro-v1:0", 0.175],
  ])("prices a million input and output tokens of %s at $%s", (modelId, usd) => {
    // Act & Assess
    expect(costOf(modelId, MILLION)).toBeCloseTo(usd, 9);
  });

  it("prices cache reads at 0.1x and cache writes at 1.25x the input price", () => {
    // Prepare
    const usage = { inputTokens: 2_000, outputTokens: 500, cacheReadTokens: 10_000, cacheWriteTokens: 4_000 };

    // Act
    const usd = costOf("us.anthropic.claude-sonnet-4-5-20250929-v1:0", usage);

    // Assess: 2000*3 + 500*15 + 10000*0.3 + 4000*3.75 = 6000 + 7500 + 3000 + 15000 per million
    expect(usd).toBe(0.0315);
  });

  it("prices every Sonnet, Haiku and Nova entry with the same cache ratios", () => {
    // Act
    const ratios = Object.values(MODEL_PRICES)
      .filter((price) => price.input > 0)
      .map((price) => [price.cacheRead / price.input, price.cacheWrite / price.input]);

    // Assess
    expect(ratios.length).toBeGreaterThan(5);
    for (const [read, write] of ratios) {
      expect(read).toBeCloseTo(0.1, 9);
      expect(write).toBeCloseTo(1.25, 9);
    }
  });

  it("prices scripted:* and local:* models at zero through their wildcard entries", () => {
    // Act & Assess
    expect(costOf("scripted:happy-path", MILLION)).toBe(0);
    expect(costOf("local:llama3.2", MILLION)).toBe(0);
    expect(priceOf("scripted:anything")).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
  });

  it("throws UnknownModelPriceError naming an unpriced model", () => {
    // Act
    const attempt = () => costOf("openai.gpt-oss-120b-1:0", MILLION);

    // Assess
    expect(attempt).toThrow(UnknownModelPriceError);
    expect(attempt).toThrow("No price for model 'openai.gpt-oss-120b-1:0'");
  });

  it("does not treat a scripted prefix inside another id as a wildcard match", () => {
    // Act & Assess
    expect(() => costOf("xscripted:foo", MILLION)).toThrow(UnknownModelPriceError);
  });
});

describe("recordModelUsage", () => {
  it("adds tokens, calls and cost to the goal total and to the role", () => {
    // Prepare
    const sonnet = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
    const haiku = "us.anthropic.claude-haiku-4-5-20251001-v1:0";
    const usage = { inputTokens: 1_000, outputTokens: 200, cacheReadTokens: 5_000, cacheWriteTokens: 1_000 };

    // Act
    const planned = frozen(recordModelUsage(buildGoal(), "plan", sonnet, usage, NOW));
    const change = recordModelUsage(planned, "execute", haiku, usage, NOW);

    // Assess
    const { record } = change;
    // Sonnet: 3000 + 3000 + 1500 + 3750 = 11250 per million; Haiku: 1000 + 1000 + 500 + 1250 = 3750.
    expect(record.usageByRole.plan).toEqual({ ...usage, modelCalls: 1, costUsd: 0.01125 });
    expect(record.usageByRole.execute).toEqual({ ...usage, modelCalls: 1, costUsd: 0.00375 });
    expect(record.usageByRole.reason?.modelCalls ?? 0).toBe(0);
    expect(record.usage).toEqual({
      inputTokens: 2_000,
      outputTokens: 400,
      cacheReadTokens: 10_000,
      cacheWriteTokens: 2_000,
      modelCalls: 2,
      costUsd: 0.015,
    });
    expect(change.events).toEqual([
      expect.objectContaining({ type: "model.usage", role: "execute", modelId: haiku, costUsd: 0.00375 }),
    ]);
  });

  it("refuses an unpriced model without changing the goal", () => {
    // Act & Assess
    expect(() =>
      recordModelUsage(buildGoal(), "reason", "unknown-model", { ...MILLION, inputTokens: 1 }, NOW),
    ).toThrow(UnknownModelPriceError);
  });
});
