import { Stack } from "aws-cdk-lib";
import { Annotations, Match, Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import type { GoalLoopsConfigInput } from "../../lib/config/goal-loops-config";
import { GoalLoops } from "../../lib/goal-loops";
import { buildApp } from "../../lib/goal-loops-app";
import { unbundledTestApp } from "./construct-test-app";
import { expectInvokesOnlyModels, profileResources } from "./loop-test-support";
import { type AllowStatement, allowStatementsOf, roleOf, type TemplateResource } from "./template-queries";

const NO_BUNDLING = { "aws:cdk:bundling-stacks": [] };
const EU_WEST_1 = { account: "123456789012", region: "eu-west-1" };

function synth(config: GoalLoopsConfigInput, env?: typeof EU_WEST_1) {
  const { stack } = buildApp({ context: NO_BUNDLING, config, ...(env === undefined ? {} : { env }) });
  return { stack, template: Template.fromStack(stack) };
}

/** The models each model-calling function is given (HEAVY_MODEL_ID, FAST_MODEL_ID), deduplicated. */
function configuredModels(template: Template): string[] {
  const variables = Object.values(template.findResources("AWS::Lambda::Function")).map(
    (fn) =>
      ((fn as TemplateResource).Properties.Environment as { Variables?: Record<string, unknown> } | undefined)
        ?.Variables ?? {},
  );
  return [
    ...new Set(
      variables
        .filter((vars) => vars.HEAVY_MODEL_ID !== undefined)
        .map((vars) => `${vars.HEAVY_MODEL_ID} ${vars.FAST_MODEL_ID}`),
    ),
  ];
}

/** The Bedrock statements of the role of every function given models (the model steps and the API), by role. */
function bedrockRoles(template: Template): Map<string, AllowStatement[]> {
  const roles = new Map<string, AllowStatement[]>();
  for (const fn of Object.values(template.findResources("AWS::Lambda::Function")) as TemplateResource[]) {
    const variables =
      (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
    // Model callers carry the tiers; AwaitSubgoals reads ALLOWED_MODEL_IDS only to check a child's models.
    if (variables.HEAVY_MODEL_ID === undefined) continue;
    const roleId = roleOf(fn);
    const statements = allowStatementsOf(template, roleId);
    roles.set(
      roleId,
      statements.filter((statement) => statement.actions.some((action) => action.startsWith("bedrock:"))),
    );
  }
  return roles;
}

describe("the default models", () => {
  let template: Template;
  beforeAll(() => {
    // Prepare + Act: no models settings, an environment-agnostic stack (what `cdk synth` makes without credentials)
    ({ template } = synth({}));
  }, 120_000);

  it("are Claude Sonnet 5.5 (heavy) and Claude Haiku 5.5 (fast) through global. inference profiles", () => {
    // Act & Assess
    expect(configuredModels(template)).toEqual([
      "global.anthropic.claude-sonnet-5-5 global.anthropic.claude-haiku-5-5",
    ]);
  });

  it("are all a role may invoke: each profile, and its foundation model only through that profile (bedrock:InferenceProfileArn)", () => {
    // Prepare
    const roles = bedrockRoles(template);
    const profiles = ["global.anthropic.claude-sonnet-5-5", "global.anthropic.claude-haiku-5-5"];

    // Assess: the model steps of the three loops (1 + 3 + 3) and the API
    expect(roles.size).toBeGreaterThanOrEqual(8);
    for (const [roleId, statements] of roles) {
      expectInvokesOnlyModels(statements, profileResources(profiles), roleId);
      const conditioned = statements.filter((statement) => statement.conditions !== undefined);
      expect(
        conditioned.map((statement) => [statement.resources, statement.conditions]),
        roleId,
      ).toEqual(
        ["claude-sonnet-5-5", "claude-haiku-5-5"].map((model) => [
          [
            `arn:<AWS::Partition>:bedrock:*::foundation-model/anthropic.${model}`,
            `arn:<AWS::Partition>:bedrock:::foundation-model/anthropic.${model}`,
          ],
          {
            StringEquals: {
              "bedrock:InferenceProfileArn": [
                `arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:inference-profile/global.anthropic.${model}`,
              ],
            },
          },
        ]),
      );
    }
  });
});

describe("models.dataResidency in eu-west-1", () => {
  let stack: Stack;
  let template: Template;
  beforeAll(() => {
    // Prepare + Act
    ({ stack, template } = synth({ models: { dataResidency: true } }, EU_WEST_1));
  }, 120_000);

  it("picks the eu. profiles: Claude Sonnet 5.5, and Claude Haiku 4.5 since Haiku 5.5 has no eu. profile", () => {
    // Act & Assess
    expect(configuredModels(template)).toEqual([
      "eu.anthropic.claude-sonnet-5-5 eu.anthropic.claude-haiku-4-5-20251001-v1:0",
    ]);
  });

  it("lets the roles invoke only those eu. profiles, in eu-west-1, and their models only through them", () => {
    // Prepare
    const roles = bedrockRoles(template);

    // Assess
    expect(roles.size).toBeGreaterThanOrEqual(8);
    for (const [roleId, statements] of roles) {
      expect(statements.flatMap((statement) => statement.resources).sort(), roleId).toEqual(
        [
          "arn:<AWS::Partition>:bedrock:eu-west-1:123456789012:inference-profile/eu.anthropic.claude-sonnet-5-5",
          "arn:<AWS::Partition>:bedrock:eu-west-1:123456789012:inference-profile/eu.anthropic.claude-haiku-4-5-20251001-v1:0",
          "arn:<AWS::Partition>:bedrock:*::foundation-model/anthropic.claude-sonnet-5-5",
          "arn:<AWS::Partition>:bedrock:*::foundation-model/anthropic.claude-haiku-4-5-20251001-v1:0",
        ].sort(),
      );
      const conditions = statements.flatMap((statement) =>
        statement.conditions === undefined ? [] : [statement.conditions],
      );
      expect(conditions, roleId).toEqual([
        {
          StringEquals: {
            "bedrock:InferenceProfileArn": [
              "arn:<AWS::Partition>:bedrock:eu-west-1:123456789012:inference-profile/eu.anthropic.claude-sonnet-5-5",
            ],
          },
        },
        {
          StringEquals: {
            "bedrock:InferenceProfileArn": [
              "arn:<AWS::Partition>:bedrock:eu-west-1:123456789012:inference-profile/eu.anthropic.claude-haiku-4-5-20251001-v1:0",
            ],
          },
        },
      ]);
    }
  });

  it("says in the synth output which model each tier got and why", () => {
    // Act
    const annotations = Annotations.fromStack(stack);

    // Assess
    annotations.hasInfo(
      "/GoalLoopsStack/Default",
      Match.stringLikeRegexp(
        "models\\.heavy defaults to Claude Sonnet 5\\.5 \\('eu\\.anthropic\\.claude-sonnet-5-5'\\)",
      ),
    );
    annotations.hasInfo(
      "/GoalLoopsStack/Default",
      Match.stringLikeRegexp(
        "models\\.fast defaults to Claude Haiku 4\\.5 .*Claude Haiku 5\\.5 has no eu\\. profile",
      ),
    );
  });
});

describe("models checked against the stack's region at synth", () => {
  const goalLoopsIn = (region: string | undefined, models: GoalLoopsConfigInput["models"]) => {
    const stack = new Stack(unbundledTestApp(), "MyPlatform", {
      ...(region === undefined ? {} : { env: { account: "123456789012", region } }),
    });
    return { stack, build: () => new GoalLoops(stack, "Agents", { models }) };
  };

  it("fails for a configured model with no profile in the region's geography, naming the field, the region and its profiles", () => {
    // Act
    const { build } = goalLoopsIn("eu-west-1", { dataResidency: true, fast: "anthropic.claude-haiku-5-5" });

    // Assess
    expect(build).toThrow(
      "GoalLoops: models.fast 'anthropic.claude-haiku-5-5' (Claude Haiku 5.5) has no eu. inference profile for eu-west-1 (eu.); " +
        "its profiles: global., us., jp.",
    );
  });

  it("fails for a us. profile in an EU region", () => {
    // Act
    const { build } = goalLoopsIn("eu-west-1", { heavy: "us.anthropic.claude-sonnet-5-5" });

    // Assess
    expect(build).toThrow(
      /models\.heavy 'us\.anthropic\.claude-sonnet-5-5' is a us\. inference profile, which cannot be called from eu-west-1/,
    );
  });

  it("fails for dataResidency on an environment-agnostic stack, asking for a region", () => {
    // Act
    const { build } = goalLoopsIn(undefined, { dataResidency: true });

    // Assess
    expect(build).toThrow(
      /models\.dataResidency needs the stack's region at synth.*give it an env with a region/,
    );
  });

  it("warns for a model Bedrock marks Legacy", () => {
    // Prepare
    const legacy = "eu.anthropic.claude-sonnet-4-5-20250929-v1:0";
    const { stack, build } = goalLoopsIn("eu-west-1", { heavy: legacy });

    // Act
    build();

    // Assess
    Annotations.fromStack(stack).hasWarning(
      "/MyPlatform/Agents",
      Match.stringLikeRegexp(
        `models\\.heavy: Claude Sonnet 4\\.5 \\('${legacy.replace(/\./g, "\\.")}'\\) is Legacy on Bedrock since 2026-10-08`,
      ),
    );
  }, 60_000);
});

describe("models.thinking at synth", () => {
  it("fails for thinking disabled on a Claude 5.5 model, naming the field", () => {
    // Prepare
    const stack = new Stack(unbundledTestApp(), "MyPlatform");

    // Act
    const build = () =>
      new GoalLoops(stack, "Agents", { models: { thinking: { reason: { mode: "disabled" } } } });

    // Assess
    expect(build).toThrow(
      /^GoalLoops: models\.thinking\.reason\.mode: 'disabled' is refused by Claude Sonnet 5\.5/,
    );
  });

  it("gives the setting to every function that calls a model, as MODEL_THINKING", () => {
    // Act
    const thinking = { summarize: { mode: "lowest" as const }, reason: { effort: "xhigh" as const } };
    const { template } = synth({ models: { thinking } });

    // Assess
    const variables = Object.values(template.findResources("AWS::Lambda::Function")).map(
      (fn) =>
        (
          (fn as TemplateResource).Properties.Environment as
            | { Variables?: Record<string, unknown> }
            | undefined
        )?.Variables ?? {},
    );
    const modelCalling = variables.filter((vars) => vars.HEAVY_MODEL_ID !== undefined);
    expect(modelCalling.length).toBeGreaterThanOrEqual(8);
    for (const vars of modelCalling) expect(JSON.parse(String(vars.MODEL_THINKING))).toEqual(thinking);
    expect(
      variables.some((vars) => vars.MODEL_THINKING !== undefined && vars.HEAVY_MODEL_ID === undefined),
    ).toBe(false);
  }, 120_000);
});
