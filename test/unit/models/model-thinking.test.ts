import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../lambdas/core/goal/errors";
import { parseGoalSpec } from "../../../lambdas/core/goal/goal-spec";
import { ThinkingSettingSchema } from "../../../lambdas/core/goal/thinking-settings";
import { MODEL_ROLES } from "../../../lambdas/core/models/model-roles";
import {
  DEFAULT_THINKING,
  modelFor,
  type ResolvedThinkingSetting,
  thinkingFields,
  thinkingPlan,
  thinkingProblem,
  thinkingSettingFor,
} from "../../../lambdas/core/models/model-thinking";
import { reactSpec } from "../loop/support";

const SONNET_5_5 = "global.anthropic.claude-sonnet-5-5";
const HAIKU_5_5 = "global.anthropic.claude-haiku-5-5";
const OPUS_5_5 = "global.anthropic.claude-opus-5-5";
const HAIKU_4_5 = "eu.anthropic.claude-haiku-4-5-20251001-v1:0";
const NOVA = "amazon.nova-lite-v1:0";
const TIERS = { heavyModelId: SONNET_5_5, fastModelId: HAIKU_5_5 };

const setting = (fields: Partial<ResolvedThinkingSetting> = {}): ResolvedThinkingSetting => ({
  mode: "adaptive",
  effort: "high",
  ...fields,
});

describe("each role's default", () => {
  it("is adaptive: high where the loop decides, low where it transcribes, medium for execute", () => {
    // Assess
    const efforts = Object.fromEntries(MODEL_ROLES.map((role) => [role, DEFAULT_THINKING[role].effort]));
    expect(efforts).toEqual({
      reason: "high",
      plan: "high",
      reflect: "high",
      judge: "high",
      evaluate: "high",
      attempt: "high",
      execute: "medium",
      summarize: "low",
      select: "low",
      reconcile: "low",
    });
    expect(new Set(MODEL_ROLES.map((role) => DEFAULT_THINKING[role].mode))).toEqual(new Set(["adaptive"]));
  });
});

describe("thinkingSettingFor", () => {
  it("takes each field from the GoalSpec, else the deployment, else the default", () => {
    // Act
    const resolved = thinkingSettingFor(
      "summarize",
      { summarize: { effort: "medium" } },
      { summarize: { mode: "lowest", effort: "max" } },
    );

    // Assess
    expect(resolved).toEqual({ mode: "lowest", effort: "medium" });
    expect(thinkingSettingFor("plan", undefined, undefined)).toEqual({ mode: "adaptive", effort: "high" });
  });

  it("takes a manual budget only with the mode that asks for it", () => {
    // Act
    const fromDeployment = thinkingSettingFor(
      "judge",
      { judge: { effort: "low" } },
      {
        judge: { mode: "enabled", budgetTokens: 3000 },
      },
    );
    const overridden = thinkingSettingFor(
      "judge",
      { judge: { mode: "adaptive" } },
      {
        judge: { mode: "enabled", budgetTokens: 3000 },
      },
    );

    // Assess
    expect(fromDeployment).toEqual({ mode: "enabled", effort: "low", budgetTokens: 3000 });
    expect(overridden).toEqual({ mode: "adaptive", effort: "high" });
  });

  it("refuses a budget without mode enabled, and mode enabled without a budget, naming the field", () => {
    // Act
    const stray = ThinkingSettingSchema.safeParse({ mode: "adaptive", budgetTokens: 2048 });
    const missing = ThinkingSettingSchema.safeParse({ mode: "enabled" });

    // Assess
    expect(stray.error?.issues).toEqual([expect.objectContaining({ path: ["budgetTokens"] })]);
    expect(missing.error?.issues).toEqual([expect.objectContaining({ path: ["budgetTokens"] })]);
  });
});

describe("thinkingPlan: what a request sends, per model family", () => {
  it.each([
    [
      "Claude Sonnet 5.5, adaptive",
      SONNET_5_5,
      setting(),
      { type: "adaptive", effort: "high", summarized: true },
      8192,
    ],
    [
      "Claude Sonnet 5.5, lowest (between_tools)",
      SONNET_5_5,
      setting({ mode: "lowest", effort: "low" }),
      { type: "between_tools", effort: "low", summarized: true },
      2048,
    ],
    [
      "Claude Haiku 5.5, lowest (disabled)",
      HAIKU_5_5,
      setting({ mode: "lowest", effort: "medium" }),
      { type: "disabled", effort: "medium" },
      0,
    ],
    [
      "Claude Opus 5.5, lowest (adaptive)",
      OPUS_5_5,
      setting({ mode: "lowest", effort: "max" }),
      { type: "adaptive", effort: "max", summarized: true },
      32_768,
    ],
    [
      "Claude Haiku 4.5, adaptive (a budget by effort)",
      HAIKU_4_5,
      setting(),
      { type: "enabled", budgetTokens: 4096 },
      4096,
    ],
    [
      "Claude Haiku 4.5, a manual budget",
      HAIKU_4_5,
      setting({ mode: "enabled", budgetTokens: 3000 }),
      { type: "enabled", budgetTokens: 3000 },
      3000,
    ],
    [
      "a scripted model (like Claude Sonnet 5.5)",
      "scripted:demo",
      setting({ effort: "low" }),
      { type: "adaptive", effort: "low", summarized: true },
      2048,
    ],
  ])("%s", (_what, modelId, resolved, request, allowance) => {
    // Act
    const plan = thinkingPlan(modelId, "reason", resolved);

    // Assess
    expect(plan).toEqual({ request, allowanceTokens: allowance });
  });

  it.each([
    ["Claude Haiku 4.5 at low effort (thinking off, its default)", HAIKU_4_5, setting({ effort: "low" })],
    ["Claude Haiku 4.5, lowest", HAIKU_4_5, setting({ mode: "lowest" })],
    ["a model whose thinking rules are unknown", NOVA, setting()],
  ])("sends no thinking for %s", (_what, modelId, resolved) => {
    expect(thinkingPlan(modelId, "reason", resolved)).toEqual({ allowanceTokens: 0 });
  });

  it.each([
    [
      "disabled on Claude Sonnet 5.5",
      SONNET_5_5,
      setting({ mode: "disabled" }),
      "mode",
      /'disabled' is refused by Claude Sonnet 5\.5/,
    ],
    [
      "a manual budget on Claude Sonnet 5.5",
      SONNET_5_5,
      setting({ mode: "enabled", budgetTokens: 2048 }),
      "mode",
      /'enabled' is refused by Claude Sonnet 5\.5/,
    ],
    [
      "a manual budget on Claude Haiku 5.5",
      HAIKU_5_5,
      setting({ mode: "enabled", budgetTokens: 2048 }),
      "mode",
      /refused by Claude Haiku 5\.5/,
    ],
    [
      "between_tools on Claude Haiku 5.5",
      HAIKU_5_5,
      setting({ mode: "between_tools" }),
      "mode",
      /'between_tools' is refused by Claude Haiku 5\.5/,
    ],
    [
      "disabled at xhigh on Claude Haiku 5.5",
      HAIKU_5_5,
      setting({ mode: "disabled", effort: "xhigh" }),
      "effort",
      /only at effort high or lower/,
    ],
    [
      "between_tools on Claude Haiku 4.5",
      HAIKU_4_5,
      setting({ mode: "between_tools" }),
      "mode",
      /refused by Claude 4\/4\.5/,
    ],
    [
      "disabled on a scripted model",
      "scripted:demo",
      setting({ mode: "disabled" }),
      "mode",
      /refused by the local Bedrock endpoint/,
    ],
  ])("refuses %s, naming the field and the source", (_what, modelId, resolved, field, message) => {
    // Act
    const problem = thinkingProblem(modelId, resolved, true);
    const thrown = (() => {
      try {
        thinkingPlan(modelId, "summarize", resolved);
      } catch (error) {
        return error;
      }
    })();

    // Assess
    expect(problem).toEqual({ field, message: expect.stringMatching(message) });
    expect(thrown).toBeInstanceOf(ValidationError);
    expect((thrown as ValidationError).issues).toEqual([
      { path: `models.thinking.summarize.${field}`, message: problem?.message },
    ]);
  });

  it("refuses a setting given on purpose for a model whose thinking rules are unknown, not the defaults", () => {
    expect(thinkingProblem(NOVA, setting(), false)).toBeUndefined();
    expect(thinkingProblem(NOVA, setting(), true)).toMatchObject({ field: "mode" });
  });
});

describe("modelFor and thinkingFields", () => {
  it("gives the role's model and thinking, and a ceiling of the answer's bound plus the thinking allowance", () => {
    // Prepare
    const spec = parseGoalSpec(
      reactSpec({
        models: {
          summarize: "global.anthropic.claude-sonnet-5-5",
          thinking: { summarize: { mode: "lowest" } },
        },
      }),
    );

    // Act
    const summarize = modelFor(spec, "summarize", {
      ...TIERS,
      thinking: { summarize: { effort: "medium" } },
    });
    const reason = modelFor(spec, "reason", TIERS);

    // Assess
    expect(summarize).toEqual({
      modelId: SONNET_5_5,
      thinking: {
        request: { type: "between_tools", effort: "medium", summarized: true },
        allowanceTokens: 4096,
      },
    });
    expect(thinkingFields(summarize, 600)).toEqual({
      maxTokens: 4696,
      thinking: { type: "between_tools", effort: "medium", summarized: true },
    });
    expect(thinkingFields(reason, 4096)).toEqual({
      maxTokens: 12_288,
      thinking: { type: "adaptive", effort: "high", summarized: true },
    });
    expect(thinkingFields(modelFor(spec, "reason", { ...TIERS, heavyModelId: NOVA }), 4096)).toEqual({
      maxTokens: 4096,
    });
  });
});
