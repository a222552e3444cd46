import { describe, expect, it } from "vitest";
import { UnknownModelPriceError } from "../../../lambdas/core/goal/errors";
import { costOf, MODEL_PRICES, priceOf, recordModelUsage } from "../../../lambdas/core/models/model-prices";
import { buildGoal, frozen, NOW } from "../goal/support";

const MILLION = { inputTokens: 1_000_000, outputTokens: 1_000_000, cacheReadTokens: 0, cacheWriteTokens: 0 };

describe("costOf", () => {
  it.each([
    ["global.anthropic.claude-sonnet-5-5", 12],
    ["us.anthropic.claude-sonnet-5-5", 13.2],
    ["eu.anthropic.claude-sonnet-5-5", 13.2],
    ["global.anthropic.claude-haiku-5-5", 0.6],
    ["us.anthropic.claude-haiku-5-5", 0.66],
    ["jp.anthropic.claude-haiku-5-5", 0.66],
    ["global.anthropic.claude-haiku-4-5-20251001-v1:0", 6],
    ["eu.anthropic.claude-haiku-4-5-20251001-v1:0", 6.6],
    ["global.anthropic.claude-sonnet-4-5-20250929-v1:0", 18],
    ["us.anthropic.claude-sonnet-4-5-20250929-v1:0", 19.8],
    ["anthropic.claude-sonnet-4-5-20250929-v1:0", 18],
    ["anthropic.claude-haiku-4-5-20251001-v1:0", 6],
    ["amazon.nova-lite-v1:0", 0.3],
    ["us.amazon.nova-lite-v1:0", 0.3],
    ["amazon.nova-micro-v1:0", 0.175],
  ])("prices a million input and output tokens of %s at $%s", (modelId, usd) => {
    // Act & Assess
    expect(costOf(modelId, MILLION)).toBeCloseTo(usd, 9);
  });

  it("prices Claude Sonnet 5.5's cache reads at 0.05x and its 5-minute cache writes at 1.25x the input price", () => {
    // Prepare
    const usage = { inputTokens: 2_000, outputTokens: 500, cacheReadTokens: 10_000, cacheWriteTokens: 4_000 };

    // Act
    const usd = costOf("global.anthropic.claude-sonnet-5-5", usage);

    // Assess: 2000*2 + 500*10 + 10000*0.1 + 4000*2.5 = 4000 + 5000 + 1000 + 10000 per million
    expect(usd).toBe(0.02);
  });

  it("prices a geographic profile of every Claude 4.5 and 5.5 model 10 % over its global one", () => {
    // Prepare
    const geographic = Object.keys(MODEL_PRICES).filter((id) =>
      /^(us|eu|jp|au)\.anthropic\.claude-(sonnet|haiku)-(4-5|5-5)/.test(id),
    );

    // Act
    const ratios = geographic.map((id) => {
      const global = priceOf(id.replace(/^[a-z]+\./, "global."));
      const price = priceOf(id);
      return [
        id,
        price.input / global.input,
        price.output / global.output,
        price.cacheRead / global.cacheRead,
      ];
    });

    // Assess
    expect(geographic.length).toBeGreaterThanOrEqual(9);
    for (const [id, ...ratio] of ratios)
      expect(ratio, String(id)).toEqual([1.1, 1.1, 1.1].map((r) => expect.closeTo(r, 9)));
  });

  it("prices every other priced entry's cache reads at 0.1x and writes at 1.25x the input price", () => {
    // Act
    const ratios = Object.entries(MODEL_PRICES)
      .filter(([id, price]) => price.input > 0 && !id.includes("claude-sonnet-5-5"))
      .map(([id, price]) => [id, price.cacheRead / price.input, price.cacheWrite / price.input] as const);

    // Assess
    expect(ratios.length).toBeGreaterThan(5);
    for (const [id, read, write] of ratios) {
      expect(read, id).toBeCloseTo(0.1, 9);
      expect(write, id).toBeCloseTo(1.25, 9);
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
    const sonnet = "global.anthropic.claude-sonnet-5-5";
    const haiku = "global.anthropic.claude-haiku-5-5";
    const usage = { inputTokens: 1_000, outputTokens: 200, cacheReadTokens: 5_000, cacheWriteTokens: 1_000 };

    // Act
    const planned = frozen(
      recordModelUsage(buildGoal(), "plan", { modelId: sonnet, usage, content: [] }, NOW),
    );
    const change = recordModelUsage(planned, "execute", { modelId: haiku, usage, content: [] }, NOW);

    // Assess
    const { record } = change;
    // Sonnet 5.5: 2000 + 2000 + 500 + 2500 = 7000 per million; Haiku 5.5: 100 + 100 + 50 + 125 = 375.
    expect(record.usageByRole.plan).toEqual({ ...usage, modelCalls: 1, costUsd: 0.007 });
    expect(record.usageByRole.execute).toEqual({ ...usage, modelCalls: 1, costUsd: 0.000375 });
    expect(record.usageByRole.reason?.modelCalls ?? 0).toBe(0);
    expect(record.usage).toEqual({
      inputTokens: 2_000,
      outputTokens: 400,
      cacheReadTokens: 10_000,
      cacheWriteTokens: 2_000,
      modelCalls: 2,
      costUsd: 0.007375,
    });
    expect(change.events).toEqual([
      expect.objectContaining({ type: "model.usage", role: "execute", modelId: haiku, costUsd: 0.000375 }),
    ]);
  });

  it("refuses an unpriced model without changing the goal", () => {
    // Act & Assess
    expect(() =>
      recordModelUsage(
        buildGoal(),
        "reason",
        { modelId: "unknown-model", usage: { ...MILLION, inputTokens: 1 }, content: [] },
        NOW,
      ),
    ).toThrow(UnknownModelPriceError);
  });
});
