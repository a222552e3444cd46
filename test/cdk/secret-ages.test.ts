import { Stack } from "aws-cdk-lib";
import { Annotations, Match, Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { GoalLoops } from "../../lib/goal-loops";
import { unbundledTestApp } from "./construct-test-app";
import { onlyResource, resourcesOf } from "./template-queries";

/** A value CloudFormation builds with Fn::Join, with each Ref written `<Ref:logicalId>`: readable JSON. */
function joined(value: unknown): string {
  if (typeof value === "string") return value;
  const { Ref: ref, "Fn::Join": join } = value as { Ref?: string; "Fn::Join"?: [string, unknown[]] };
  if (ref !== undefined) return `<Ref:${ref}>`;
  if (join === undefined) return `<${JSON.stringify(value)}>`;
  return join[1].map(joined).join(join[0]);
}

describe("SecretAges (GoalLoops with owners in secrets)", () => {
  let stack: Stack;
  let template: Template;

  beforeAll(() => {
    // Prepare + Act
    stack = new Stack(unbundledTestApp(), "Secrets", {
      env: { account: "123456789012", region: "eu-west-1" },
    });
    new GoalLoops(stack, "Default", {
      tools: {
        mcp: [{ name: "tickets", url: "https://mcp.example.com/mcp", auth: { secretName: "tickets-token" } }],
      },
      secrets: {
        slackSigningSecret: { owner: "slack-admins@example.com", rotateAfterDays: 60 },
        emailLinkKey: { owner: "ops team" },
        "mcp:tickets": { owner: "tickets-team@example.com", rotateAfterDays: 30 },
        "mcp:gone": { owner: "nobody@example.com" },
      },
      operations: { metricsNamespace: "GoalLoops/ops" },
    });
    template = Template.fromStack(stack);
  });

  it("runs the probe on the 1st of every month", () => {
    // Prepare
    const [probeId] = onlyResource(template, "AWS::Lambda::Function", "SecretAgesProbe");

    // Assess
    template.hasResourceProperties("AWS::Events::Rule", {
      ScheduleExpression: "cron(0 9 1 * ? *)",
      Targets: [Match.objectLike({ Arn: { "Fn::GetAtt": [probeId, "Arn"] } })],
    });
  });

  it("gives the probe every owned secret the stack reads, its own by ARN and an MCP server's by name", () => {
    // Prepare
    const [, probe] = onlyResource(template, "AWS::Lambda::Function", "SecretAgesProbe");
    const variables = (probe.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    const signing = onlyResource(template, "AWS::SecretsManager::Secret", "SlackDoorSigningSecret")[0];
    const link = onlyResource(template, "AWS::SecretsManager::Secret", "EmailDoorLinkSecret")[0];

    // Act
    const owned = JSON.parse(joined(variables.OWNED_SECRETS));

    // Assess
    expect(owned).toEqual([
      {
        key: "slackSigningSecret",
        secretId: `<Ref:${signing}>`,
        owner: "slack-admins@example.com",
        rotateAfterDays: 60,
      },
      { key: "emailLinkKey", secretId: `<Ref:${link}>`, owner: "ops team", rotateAfterDays: 90 },
      {
        key: "mcp:tickets",
        secretId: "tickets-token",
        owner: "tickets-team@example.com",
        rotateAfterDays: 30,
      },
    ]);
    expect(variables.POWERTOOLS_METRICS_NAMESPACE).toBe("GoalLoops/ops");
  });

  it("lets the probe call DescribeSecret on exactly those secrets, and nothing else", () => {
    // Prepare
    const [roleId] = onlyResource(template, "AWS::IAM::Role", "SecretAgesProbe");
    const policies = [...resourcesOf(template, "AWS::IAM::Policy").values()].filter((policy) =>
      JSON.stringify(policy.Properties.Roles).includes(roleId),
    );
    const signing = onlyResource(template, "AWS::SecretsManager::Secret", "SlackDoorSigningSecret")[0];
    const link = onlyResource(template, "AWS::SecretsManager::Secret", "EmailDoorLinkSecret")[0];

    // Act
    const statements = policies
      .flatMap(
        (policy) =>
          (policy.Properties.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] })
            .Statement,
      )
      .filter((statement) => JSON.stringify(statement.Action).includes("secretsmanager:"));

    // Assess: besides its logs and traces, like every function
    expect(statements).toHaveLength(1);
    expect(statements[0]?.Action).toBe("secretsmanager:DescribeSecret");
    expect(((statements[0]?.Resource ?? []) as unknown[]).map(joined)).toEqual([
      `<Ref:${signing}>`,
      `<Ref:${link}>`,
      "arn:<Ref:AWS::Partition>:secretsmanager:eu-west-1:123456789012:secret:tickets-token-??????",
    ]);
  });

  it("alarms per secret above its rotateAfterDays, naming the secret and its owner, on the alarm topic", () => {
    // Prepare
    const alarms = [...resourcesOf(template, "AWS::CloudWatch::Alarm")].filter(([id]) =>
      id.startsWith("SecretAgesSecretAge"),
    );
    const [topicId] = onlyResource(template, "AWS::SNS::Topic");

    // Assess
    expect(alarms.map(([id]) => id.replace(/[0-9A-F]{8}$/, ""))).toEqual([
      "SecretAgesSecretAgeSlackSigningSecretAlarm",
      "SecretAgesSecretAgeEmailLinkKeyAlarm",
      "SecretAgesSecretAgeMcpTicketsAlarm",
    ]);
    template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      MetricName: "SecretAgeDays",
      Namespace: "GoalLoops/ops",
      Dimensions: [
        { Name: "Secret", Value: "mcp:tickets" },
        { Name: "service", Value: "goal-loops" },
      ],
      Statistic: "Maximum",
      Period: 86400,
      Threshold: 30,
      ComparisonOperator: "GreaterThanThreshold",
      TreatMissingData: "ignore",
      AlarmActions: [{ Ref: topicId }],
    });
    const [, tickets] = alarms[2] ?? [];
    expect(joined(tickets?.Properties.AlarmDescription)).toMatch(
      /^The secret mcp:tickets is older than its rotateAfterDays \(30\): tickets-team@example.com should rotate it .*then invoke <Ref:SecretAgesProbeFunction[0-9A-F]{8}> to clear this alarm\.$/,
    );
  });

  it("alarms on the probe's first failed run of a day, besides the 5-minute error alarm every function has", () => {
    // Prepare
    const [probeId] = onlyResource(template, "AWS::Lambda::Function", "SecretAgesProbe");
    const [topicId] = onlyResource(template, "AWS::SNS::Topic");

    // Assess
    template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      MetricName: "Errors",
      Dimensions: [{ Name: "FunctionName", Value: { Ref: probeId } }],
      Period: 86400,
      Threshold: 1,
      AlarmActions: [{ Ref: topicId }],
    });
    template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      MetricName: "Errors",
      Dimensions: [{ Name: "FunctionName", Value: { Ref: probeId } }],
      Period: 300,
    });
  });

  it("warns at synth about an owner entry whose MCP server has no secret, and ages nothing for it", () => {
    Annotations.fromStack(stack).hasWarning(
      "/Secrets/Default",
      Match.stringLikeRegexp("secrets.mcp:gone: no MCP server with auth.secretName is called gone"),
    );
  });
});

describe("GoalLoops without owners in secrets", () => {
  it("deploys no secret-age probe and no secret-age alarm", () => {
    // Prepare + Act
    const template = Template.fromStack(
      (() => {
        const stack = new Stack(unbundledTestApp(), "NoSecrets");
        new GoalLoops(stack, "Default", {});
        return stack;
      })(),
    );

    // Assess
    expect(
      [...resourcesOf(template, "AWS::Lambda::Function").keys()].filter((id) => id.startsWith("SecretAges")),
    ).toEqual([]);
    expect(
      [...resourcesOf(template, "AWS::CloudWatch::Alarm").keys()].filter((id) => id.startsWith("SecretAges")),
    ).toEqual([]);
  });
});
