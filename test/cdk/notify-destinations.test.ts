import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import type { CloudAssembly } from "aws-cdk-lib/cx-api";
import { beforeAll, describe, expect, it } from "vitest";
import { GoalLoops } from "../../lib/goal-loops";
import { buildApp } from "../../lib/goal-loops-app";
import { unbundledTestApp } from "./construct-test-app";
import { allowedActionsOf, roleOf, type TemplateResource } from "./template-queries";

const NO_BUNDLING = { "aws:cdk:bundling-stacks": [] };
/** The functions that run tool calls, by logical id prefix. */
const ACTING = [
  "LoopStepsActFunction",
  "PlanExecuteLoopExecuteFunction",
  "ReactLoopVerifyAndReasonFunction",
  "ReflexionLoopAttemptFunction",
];

const NOTIFY = {
  channels: {
    ops: { type: "slack", channel: "C0123ABCD" },
    release: { type: "email", to: ["release@example.com"] },
    pager: { type: "webhook", url: "https://hooks.example.com/goal-loops" },
  },
  emailSender: "notify@example.com",
} as const;

function functionsOf(template: Template): [string, TemplateResource][] {
  return Object.entries(template.findResources("AWS::Lambda::Function")) as [string, TemplateResource][];
}

function environmentOf(fn: TemplateResource): Record<string, unknown> {
  return (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
}

function isActing(logicalId: string): boolean {
  return ACTING.some((prefix) => logicalId.startsWith(prefix));
}

describe("notify.channels in the synthesized stack", () => {
  let template: Template;
  let assembly: CloudAssembly;

  beforeAll(() => {
    // Prepare + Act
    const { app, stack } = buildApp({
      context: NO_BUNDLING,
      config: { http: { allowedHosts: ["hooks.example.com"] }, notify: NOTIFY },
    });
    assembly = app.synth();
    template = Template.fromStack(stack);
  }, 120_000);

  it("tells exactly the four acting functions the channels, the sender and the bot token's secret", () => {
    // Act
    const withChannels = functionsOf(template).filter(
      ([, fn]) => environmentOf(fn).NOTIFY_CHANNELS !== undefined,
    );
    const botToken = Object.keys(template.findResources("AWS::SecretsManager::Secret")).find((id) =>
      id.startsWith("SlackDoorBotToken"),
    );

    // Assess
    expect(withChannels.map(([id]) => id).filter(isActing)).toHaveLength(4);
    expect(withChannels).toHaveLength(4);
    for (const [, fn] of withChannels) {
      const environment = environmentOf(fn);
      expect(JSON.parse(String(environment.NOTIFY_CHANNELS))).toEqual({
        ...NOTIFY.channels,
        release: { ...NOTIFY.channels.release, subject: "goal-loops notification" },
      });
      expect(environment.NOTIFY_EMAIL_FROM).toBe("notify@example.com");
      expect(environment.SLACK_BOT_TOKEN_ARN).toEqual({ Ref: botToken });
    }
  });

  it("lets the acting functions send e-mail as the sender to the recipients only (identities SES checks in its sandbox), and read the bot token", () => {
    for (const [, fn] of functionsOf(template).filter(([id]) => isActing(id))) {
      // Act
      const allowed = allowedActionsOf(template, roleOf(fn));

      // Assess: the sender and each recipient, as addresses and as their domain (one here)
      expect(
        allowed
          .resourcesOf("ses:SendEmail")
          .map((arn) => arn.replace(/^.*:identity\//, ""))
          .sort(),
      ).toEqual(["example.com", "notify@example.com", "release@example.com"]);
      expect(allowed.resourcesOf("ses:SendEmail").every((arn) => /^arn:.*:ses:.*:identity\//.test(arn))).toBe(
        true,
      );
      expect(allowed.resourcesOf("secretsmanager:GetSecretValue").join(" ")).toContain("SlackDoorBotToken");
    }
  });

  it("grants ses:SendEmail to no other function", () => {
    const senders = functionsOf(template)
      .filter(([, fn]) => allowedActionsOf(template, roleOf(fn)).actions.includes("ses:SendEmail"))
      .map(([id]) => id);
    expect(senders.filter((id) => !isActing(id))).toEqual([]);
  });

  it("passes cdk-nag with no new violation", () => {
    const report = JSON.parse(readFileSync(join(assembly.directory, "validation-report.json"), "utf8")) as {
      pluginReports: { violations: unknown[] }[];
    };
    expect(report.pluginReports.flatMap((plugin) => plugin.violations)).toEqual([]);
  });
});

describe("notify.channels refused at synth", () => {
  const build = (config: Record<string, unknown>) => () =>
    new GoalLoops(new Stack(unbundledTestApp(), "S"), "G", config);

  it("refuses a webhook host that is not in http.allowedHosts, and plain http off this machine", () => {
    expect(
      build({ notify: { channels: { pager: { type: "webhook", url: "https://hooks.example.com/x" } } } }),
    ).toThrow(
      "GoalLoops: notify.channels.pager.url host 'hooks.example.com' must also be in http.allowedHosts",
    );
    expect(
      build({
        http: { allowedHosts: ["hooks.example.com"] },
        notify: { channels: { pager: { type: "webhook", url: "http://hooks.example.com/x" } } },
      }),
    ).toThrow(/notify\.channels\.pager\.url must be https/);
  });

  it("refuses an e-mail channel without a sender, and a bad Slack channel id", () => {
    expect(build({ notify: { channels: { release: { type: "email", to: ["a@example.com"] } } } })).toThrow(
      /notify\.channels\.release an e-mail channel needs a sender/,
    );
    expect(build({ notify: { channels: { ops: { type: "slack", channel: "#ops" } } } })).toThrow(
      /notify\.channels\.ops\.channel must be a Slack channel id/,
    );
  });

  it("adds nothing to any function when no channel is configured", () => {
    // Act
    const stack = new Stack(unbundledTestApp(), "S");
    new GoalLoops(stack, "G", {});
    const template = Template.fromStack(stack);

    // Assess
    const withChannels = functionsOf(template).filter(
      ([, fn]) => environmentOf(fn).NOTIFY_CHANNELS !== undefined,
    );
    expect(withChannels).toEqual([]);
  });
});
