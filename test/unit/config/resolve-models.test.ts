import { describe, expect, it } from "vitest";
import { priceOf } from "../../../lambdas/core/models/model-prices";
import { KNOWN_MODELS, profileId } from "../../../lib/config/bedrock-model-catalog";
import type { ModelsConfig } from "../../../lib/config/goal-loops-config";
import { ConfigError } from "../../../lib/config/parse-settings";
import { resolveModels } from "../../../lib/config/resolve-models";

const SONNET_5_5 = "anthropic.claude-sonnet-5-5";
const HAIKU_5_5 = "anthropic.claude-haiku-5-5";
const HAIKU_4_5 = "anthropic.claude-haiku-4-5-20251001-v1:0";
const SONNET_4_5 = "anthropic.claude-sonnet-4-5-20250929-v1:0";

const resolve = (models: ModelsConfig, region: string | undefined) =>
  resolveModels(models, { region }, "GoalLoops");

function failureOf(models: ModelsConfig, region: string | undefined): ConfigError {
  try {
    resolve(models, region);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("resolveModels", () => {
  describe("defaults", () => {
    it.each([
      ["us-east-1", "us-east-1"],
      ["eu-west-1", "eu-west-1"],
      ["an environment-agnostic stack", undefined],
    ])("are Claude Sonnet 5.5 and Haiku 5.5 through global. profiles in %s", (_where, region) => {
      // Act
      const models = resolve({}, region);

      // Assess
      expect(models).toMatchObject({
        heavy: `global.${SONNET_5_5}`,
        fast: `global.${HAIKU_5_5}`,
        allowed: [`global.${SONNET_5_5}`, `global.${HAIKU_5_5}`],
        warnings: [],
      });
      expect(models.notes).toEqual([
        expect.stringMatching(/^models\.heavy defaults to Claude Sonnet 5\.5 \('global\..*list price/),
        expect.stringMatching(/^models\.fast defaults to Claude Haiku 5\.5 \('global\./),
      ]);
    });

    it("pick the region's eu. profiles with dataResidency in eu-west-1: Haiku 4.5 for fast, saying why", () => {
      // Act
      const models = resolve({ dataResidency: true }, "eu-west-1");

      // Assess
      expect(models.heavy).toBe(`eu.${SONNET_5_5}`);
      expect(models.fast).toBe(`eu.${HAIKU_4_5}`);
      expect(models.notes[1]).toBe(
        `models.fast defaults to Claude Haiku 4.5 ('eu.${HAIKU_4_5}'): the eu. profile keeps requests in the geography of ` +
          "eu-west-1 (eu.) (dataResidency; geographic profiles cost 10 % more than global); " +
          "Claude Haiku 5.5 has no eu. profile (its profiles: global., us., jp.)",
      );
    });

    it("pick us. profiles of both 5.5 models with dataResidency in us-west-2", () => {
      // Act
      const models = resolve({ dataResidency: true }, "us-west-2");

      // Assess
      expect([models.heavy, models.fast]).toEqual([`us.${SONNET_5_5}`, `us.${HAIKU_5_5}`]);
    });

    it("fail for a tier no default can serve in the geography, naming the field and the profiles that exist", () => {
      // Act
      const error = failureOf({ dataResidency: true }, "ap-northeast-1");

      // Assess
      expect(error.message).toBe(
        "GoalLoops: models.heavy: no default model has a jp. or apac. profile for ap-northeast-1 (jp. or apac.) " +
          "(Claude Sonnet 5.5 has no jp. or apac. profile (its profiles: global., us., eu.)); " +
          "set models.heavy to a model you can call there",
      );
    });
  });

  describe("dataResidency", () => {
    it("asks for a region when the stack is environment-agnostic", () => {
      // Act
      const error = failureOf({ dataResidency: true }, undefined);

      // Assess
      expect(error.message).toMatch(/^GoalLoops: models\.dataResidency needs the stack's region at synth/);
      expect(error.message).toMatch(/give it an env with a region/);
    });

    it("refuses a region whose geography is not known", () => {
      // Act & Assess
      expect(failureOf({ dataResidency: true }, "sa-east-1").message).toMatch(
        /no geographic inference profile is known for region sa-east-1/,
      );
    });

    it("refuses a global. profile, which may send requests anywhere", () => {
      // Act
      const error = failureOf({ dataResidency: true, heavy: `global.${SONNET_5_5}` }, "eu-west-1");

      // Assess
      expect(error.message).toMatch(
        `GoalLoops: models.heavy 'global.${SONNET_5_5}' may send requests to any commercial region, which models.dataResidency rules out`,
      );
    });

    it("turns a known model's foundation model id into the region's profile", () => {
      // Act
      const models = resolve({ dataResidency: true, heavy: SONNET_4_5, fast: HAIKU_5_5 }, "ap-northeast-1");

      // Assess
      expect([models.heavy, models.fast]).toEqual([`jp.${SONNET_4_5}`, `jp.${HAIKU_5_5}`]);
    });
  });

  describe("configured models", () => {
    it("fail when the model has no profile for the region's geography, naming the field, the region and its profiles", () => {
      // Act
      const error = failureOf({ dataResidency: true, fast: HAIKU_5_5 }, "eu-west-1");

      // Assess
      expect(error.message).toBe(
        `GoalLoops: models.fast '${HAIKU_5_5}' (Claude Haiku 5.5) has no eu. inference profile for eu-west-1 (eu.); ` +
          "its profiles: global., us., jp.",
      );
    });

    it("fail for a geographic profile the region cannot call, even without dataResidency", () => {
      // Act
      const error = failureOf({ heavy: `us.${SONNET_5_5}` }, "eu-central-1");

      // Assess
      expect(error.message).toBe(
        `GoalLoops: models.heavy 'us.${SONNET_5_5}' is a us. inference profile, which cannot be called from ` +
          "eu-central-1 (eu.); Claude Sonnet 5.5's profiles: global., us., eu.",
      );
    });

    it("fail for a profile the model does not have", () => {
      // Act & Assess
      expect(failureOf({ fast: `eu.${HAIKU_5_5}` }, "eu-west-1").message).toBe(
        `GoalLoops: models.fast 'eu.${HAIKU_5_5}' is not an inference profile of Claude Haiku 5.5; its profiles: global., us., jp.`,
      );
    });

    it("pass a geographic profile unchecked when the region is only known at deploy", () => {
      // Act
      const models = resolve({ heavy: `eu.${SONNET_5_5}`, fast: `eu.${HAIKU_4_5}` }, undefined);

      // Assess
      expect([models.heavy, models.fast]).toEqual([`eu.${SONNET_5_5}`, `eu.${HAIKU_4_5}`]);
      expect(models.notes).toEqual([]);
    });

    it("warn for a model Bedrock marks Legacy, with its dates", () => {
      // Act
      const models = resolve({ heavy: `us.${SONNET_4_5}` }, "us-east-1");

      // Assess
      expect(models.heavy).toBe(`us.${SONNET_4_5}`);
      expect(models.warnings).toEqual([
        `models.heavy: Claude Sonnet 4.5 ('us.${SONNET_4_5}') is Legacy on Bedrock since 2026-10-08: new customers cannot use it, ` +
          "and it stops answering on 2027-04-08. Move to a current model (leave models.heavy unset for the default).",
      ]);
    });

    it("fail for a model without a price, naming the field, since every call to it would be refused", () => {
      // Act
      const error = failureOf(
        { allowed: [`global.${SONNET_5_5}`, `global.${HAIKU_5_5}`, "eu.amazon.nova-pro-v1:0"] },
        "eu-west-1",
      );

      // Assess
      expect(error.message).toMatch(
        /^GoalLoops: models\.allowed\.2 'eu\.amazon\.nova-pro-v1:0' has no price in lambdas\/core\/models\/model-prices\.json/,
      );
    });

    it("fail when models.allowed leaves out a tier's default", () => {
      // Act & Assess
      expect(
        failureOf({ heavy: `global.${SONNET_5_5}`, allowed: [`global.${SONNET_5_5}`] }, "us-east-1").message,
      ).toBe(
        `GoalLoops: models.allowed must include the fast model 'global.${HAIKU_5_5}' (the default for models.fast; or set models.fast)`,
      );
    });

    it("resolve models.allowed like the tiers, each model once", () => {
      // Act
      const models = resolve(
        { dataResidency: true, allowed: [SONNET_5_5, HAIKU_4_5, `eu.${HAIKU_4_5}`, "amazon.nova-lite-v1:0"] },
        "eu-west-1",
      );

      // Assess
      expect(models.allowed).toEqual([`eu.${SONNET_5_5}`, `eu.${HAIKU_4_5}`, "amazon.nova-lite-v1:0"]);
    });
  });
});

describe("models.thinking at synth", () => {
  it("refuses thinking disabled for reason on Claude Sonnet 5.5 (the heavy default), naming the field and the source", () => {
    // Act
    const failure = failureOf({ thinking: { reason: { mode: "disabled" } } }, "us-east-1");

    // Assess
    expect(failure.message).toMatch(
      /^GoalLoops: models\.thinking\.reason\.mode: 'disabled' is refused by Claude Sonnet 5\.5 \('global\.anthropic\.claude-sonnet-5-5'\), which takes adaptive, lowest, between_tools \(Anthropic, What's new in Claude Sonnet 5\.5/,
    );
  });

  it("refuses a manual budget where only adaptive thinking is accepted, and takes it where it is", () => {
    // Act
    const onHaiku55 = failureOf(
      { thinking: { judge: { mode: "enabled", budgetTokens: 2048 } } },
      "us-east-1",
    );
    const onHaiku45 = resolve(
      { dataResidency: true, thinking: { judge: { mode: "enabled", budgetTokens: 2048 } } },
      "eu-west-1",
    );

    // Assess
    expect(onHaiku55.message).toMatch(
      /models\.thinking\.judge\.mode: 'enabled' is refused by Claude Haiku 5\.5/,
    );
    expect(onHaiku45.fast).toBe(`eu.${HAIKU_4_5}`);
    expect(onHaiku45.thinking).toEqual({ judge: { mode: "enabled", budgetTokens: 2048 } });
  });

  it("checks each role against its own tier: lowest is between_tools on the heavy model, disabled on the fast one", () => {
    // Act
    const models = resolve(
      { thinking: { reason: { mode: "lowest" }, summarize: { mode: "disabled" } } },
      "us-east-1",
    );
    const tooDeep = failureOf({ thinking: { select: { mode: "disabled", effort: "max" } } }, "us-east-1");

    // Assess
    expect(models.thinking).toEqual({ reason: { mode: "lowest" }, summarize: { mode: "disabled" } });
    expect(tooDeep.message).toMatch(
      /models\.thinking\.select\.effort: 'max' with thinking disabled is refused by Claude Haiku 5\.5/,
    );
  });

  it("names every role it refuses at once", () => {
    // Act
    const failure = failureOf(
      { thinking: { reason: { mode: "disabled" }, plan: { mode: "enabled", budgetTokens: 4096 } } },
      "us-east-1",
    );

    // Assess
    expect(failure.message).toMatch(/models\.thinking\.reason\.mode: .*; models\.thinking\.plan\.mode: /);
  });
});

describe("the model catalog", () => {
  it("has a price for every inference profile of every model it knows", () => {
    // Act
    const unpriced = KNOWN_MODELS.flatMap((model) =>
      model.profiles.map((geography) => profileId(geography, model.foundationModelId)),
    ).filter((id) => {
      try {
        priceOf(id);
        return false;
      } catch {
        return true;
      }
    });

    // Assess
    expect(unpriced).toEqual([]);
  });
});
