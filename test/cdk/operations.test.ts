import { type CfnElement, Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { GOAL_METRICS } from "../../lambdas/adapters/metrics/goal-metrics";
import { GoalLoops } from "../../lib/goal-loops";
import { unbundledTestApp } from "./construct-test-app";

interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
}

function resourcesOf(template: Template, type: string): [string, Resource][] {
  return Object.entries(template.findResources(type)) as [string, Resource][];
}

function alarmsOf(template: Template): Resource[] {
  return resourcesOf(template, "AWS::CloudWatch::Alarm").map(([, alarm]) => alarm);
}

function onlyId(template: Template, type: string): string {
  const ids = Object.keys(template.findResources(type));
  expect(ids).toHaveLength(1);
  return ids[0] ?? "";
}

describe("Operations (GoalLoops with an operations section)", () => {
  let template: Template;
  let goalLoops: GoalLoops;
  let topicId: string;

  beforeAll(() => {
    // Prepare + Act
    const stack = new Stack(unbundledTestApp(), "Ops");
    goalLoops = new GoalLoops(stack, "Default", {
      operations: {
        alarmEmail: "oncall@example.com",
        spendPerHourUsd: 3.5,
        pendingApprovalAlarmSeconds: 1800,
        lambdaErrorsPerFiveMinutes: 2,
        approvalTenantIds: ["210987654321"],
        metricsNamespace: "GoalLoops/ops",
      },
    });
    template = Template.fromStack(stack);
    topicId = onlyId(template, "AWS::SNS::Topic");
  });

  it("sends every alarm, the dead-letter queue's included, to one KMS-encrypted topic e-mailed to the configured address", () => {
    // Assess
    template.hasResourceProperties("AWS::SNS::Topic", { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties("AWS::SNS::Subscription", {
      Protocol: "email",
      Endpoint: "oncall@example.com",
      TopicArn: { Ref: topicId },
    });
    const alarms = alarmsOf(template);
    expect(alarms.length).toBeGreaterThan(0);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
    expect(alarms.map((alarm) => alarm.Properties.MetricName)).toContain(
      "ApproximateNumberOfMessagesVisible",
    );
  });

  it("lets CloudWatch publish to the topic and use its key, only for alarms of this account and region", () => {
    // Prepare: the condition both the topic policy and the key policy carry
    const fromOwnAlarms = {
      StringEquals: { "aws:SourceAccount": { Ref: "AWS::AccountId" } },
      ArnLike: {
        "aws:SourceArn": {
          "Fn::Join": [
            "",
            [
              "arn:",
              { Ref: "AWS::Partition" },
              ":cloudwatch:",
              { Ref: "AWS::Region" },
              ":",
              { Ref: "AWS::AccountId" },
              ":alarm:*",
            ],
          ],
        },
      },
    };

    // Assess: without the publish allow, alarm mail never arrives; without the key grant, neither
    template.hasResourceProperties("AWS::SNS::TopicPolicy", {
      Topics: [{ Ref: topicId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: "Allow",
            Principal: { Service: "cloudwatch.amazonaws.com" },
            Action: "sns:Publish",
            Resource: { Ref: topicId },
            Condition: fromOwnAlarms,
          }),
        ]),
      },
    });
    // CloudWatch may use the topic's key (it cannot publish under the AWS managed SNS key).
    template.hasResource("AWS::KMS::Key", {
      // It protects messages in flight only: deleted with the stack, never left to cost a month.
      DeletionPolicy: "Delete",
      Properties: {
        EnableKeyRotation: true,
        PendingWindowInDays: 7,
        KeyPolicy: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Principal: { Service: "cloudwatch.amazonaws.com" },
              Action: ["kms:Decrypt", "kms:GenerateDataKey*"],
              Condition: fromOwnAlarms,
            }),
          ]),
        },
      },
    });
  });

  it("alarms on failed and timed-out executions of each loop", () => {
    // Assess
    for (const metricName of ["ExecutionsFailed", "ExecutionsTimedOut"]) {
      const watched = alarmsOf(template)
        .filter((alarm) => alarm.Properties.MetricName === metricName)
        .map((alarm) => {
          expect(alarm.Properties).toMatchObject({
            Namespace: "AWS/States",
            Threshold: 1,
            ComparisonOperator: "GreaterThanOrEqualToThreshold",
          });
          return JSON.stringify(alarm.Properties.Dimensions);
        });
      expect(watched).toHaveLength(3);
      for (const loop of goalLoops.loops) {
        const stateMachineId = Stack.of(loop).getLogicalId(loop.stateMachine.node.defaultChild as CfnElement);
        expect(watched.some((dimensions) => dimensions.includes(stateMachineId))).toBe(true);
      }
    }
  });

  it("alarms on errors (at the configured count) and throttles of every function, the probe's included", () => {
    // Prepare
    const functionIds = resourcesOf(template, "AWS::Lambda::Function").map(([id]) => id);

    // Assess
    for (const [metricName, threshold] of [
      ["Errors", 2],
      ["Throttles", 1],
    ] as const) {
      const watched = alarmsOf(template)
        .filter((alarm) => alarm.Properties.MetricName === metricName)
        .map((alarm) => {
          expect(alarm.Properties).toMatchObject({
            Namespace: "AWS/Lambda",
            Threshold: threshold,
            Statistic: "Sum",
          });
          return (alarm.Properties.Dimensions as { Value: { Ref: string } }[])[0]?.Value.Ref;
        });
      expect(watched.sort()).toEqual([...functionIds].sort());
    }
    expect(functionIds.some((id) => id.startsWith("OperationsPendingApprovalsProbe"))).toBe(true);
  });

  it("alarms on API 5XX, the oldest pending approval and the spend per hour", () => {
    // Assess
    template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      Namespace: "AWS/ApiGateway",
      MetricName: "5XXError",
      Threshold: 1,
    });
    template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      Namespace: "GoalLoops/ops",
      MetricName: GOAL_METRICS.oldestPendingApprovalAgeSeconds,
      Statistic: "Maximum",
      Threshold: 1800,
      ComparisonOperator: "GreaterThanThreshold",
      Dimensions: [{ Name: "service", Value: "goal-loops" }],
    });
    // The total over every role and model: only the service dimension, summed over one hour.
    template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      Namespace: "GoalLoops/ops",
      MetricName: GOAL_METRICS.costUsd,
      Statistic: "Sum",
      Period: 3600,
      Threshold: 3.5,
      ComparisonOperator: "GreaterThanThreshold",
      Dimensions: [{ Name: "service", Value: "goal-loops" }],
    });
  });

  it("alarms when Bedrock has throttled goals' calls for 15 minutes running", () => {
    // Assess: CapacityWaits with Reason=throttled, at least once in each of three 5-minute periods
    template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      Namespace: "GoalLoops/ops",
      MetricName: GOAL_METRICS.capacityWaits,
      Statistic: "Sum",
      Period: 300,
      Threshold: 1,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
      Dimensions: [
        { Name: "Reason", Value: "throttled" },
        { Name: "service", Value: "goal-loops" },
      ],
    });
  });

  it("measures the oldest pending approval every 5 minutes for the stack's account and the configured tenants", () => {
    // Prepare
    const [probeId, probe] = resourcesOf(template, "AWS::Lambda::Function").find(([id]) =>
      id.startsWith("OperationsPendingApprovalsProbe"),
    ) ?? ["", undefined];

    // Assess
    expect(probe?.Properties.Environment).toMatchObject({
      Variables: {
        APPROVAL_TENANT_IDS: { "Fn::Join": ["", [{ Ref: "AWS::AccountId" }, ",210987654321"]] },
        POWERTOOLS_METRICS_NAMESPACE: "GoalLoops/ops",
      },
    });
    template.hasResourceProperties("AWS::Events::Rule", {
      ScheduleExpression: "rate(5 minutes)",
      Targets: [Match.objectLike({ Arn: { "Fn::GetAtt": [probeId, "Arn"] } })],
    });
  });

  it("gives every function the metrics namespace", () => {
    for (const [, fn] of resourcesOf(template, "AWS::Lambda::Function")) {
      expect(fn.Properties.Environment).toMatchObject({
        Variables: { POWERTOOLS_METRICS_NAMESPACE: "GoalLoops/ops" },
      });
    }
  });

  it("draws one dashboard of the goal metrics, the executions, the API and the functions", () => {
    // Prepare
    const [, dashboard] = resourcesOf(template, "AWS::CloudWatch::Dashboard")[0] ?? [];
    const body = JSON.stringify(Stack.of(goalLoops).resolve(dashboard?.Properties.DashboardBody));

    // Assess
    expect(resourcesOf(template, "AWS::CloudWatch::Dashboard")).toHaveLength(1);
    expect(dashboard?.Properties.DashboardName).toBe("Ops-goal-loops");
    for (const name of Object.values(GOAL_METRICS)) expect(body).toContain(name);
    for (const pattern of ["react", "plan_execute", "reflexion"]) expect(body).toContain(pattern);
    for (const metric of ["ExecutionsFailed", "5XXError", "Errors", "Throttles", "alarms"]) {
      expect(body).toContain(metric);
    }
    expect(body).toContain("SEARCH(");
  });
});

describe("Operations without an alarm e-mail", () => {
  it("keeps the topic (for subscriptions of your own) and subscribes nobody", () => {
    // Act
    const stack = new Stack(unbundledTestApp(), "Quiet");
    new GoalLoops(stack, "Default");
    const template = Template.fromStack(stack);

    // Assess
    template.resourceCountIs("AWS::SNS::Topic", 1);
    template.resourceCountIs("AWS::SNS::Subscription", 0);
    template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      MetricName: GOAL_METRICS.costUsd,
      Namespace: "GoalLoops",
      Threshold: 10,
    });
  });

  it("refuses a bad operations setting, naming it", () => {
    const stack = new Stack(unbundledTestApp(), "Bad");
    expect(() => new GoalLoops(stack, "Default", { operations: { spendPerHourUsd: 0 } })).toThrow(
      /operations\.spendPerHourUsd must be a number of US dollars above 0; got 0/,
    );
  });
});

describe("Operations with api.auth iam+jwt (two goals APIs)", () => {
  let template: Template;
  let goalLoops: GoalLoops;

  beforeAll(() => {
    // Prepare + Act
    const stack = new Stack(unbundledTestApp(), "Both");
    goalLoops = new GoalLoops(stack, "Default", {
      api: {
        auth: {
          mode: "iam+jwt",
          jwt: { issuer: "https://issuer.example.com/", audience: "goal-loops", tenantClaim: "tenant" },
        },
      },
    });
    template = Template.fromStack(stack);
  });

  it("alarms on each API's 5XX, each alarm on its own API", () => {
    // Act
    const apiNames = alarmsOf(template)
      .filter((alarm) => alarm.Properties.MetricName === "5XXError")
      .map((alarm) => JSON.stringify(alarm.Properties.Dimensions));
    const apiIds = resourcesOf(template, "AWS::ApiGateway::RestApi").map(([id]) => id);

    // Assess
    expect(apiIds).toHaveLength(2);
    expect(apiNames).toHaveLength(2);
    for (const apiId of apiIds) {
      const restApiName = Stack.of(goalLoops).resolve(
        resourcesOf(template, "AWS::ApiGateway::RestApi").find(([id]) => id === apiId)?.[1].Properties.Name,
      );
      expect(apiNames.filter((dimensions) => dimensions.includes(JSON.stringify(restApiName)))).toHaveLength(
        1,
      );
    }
  });

  it("graphs both APIs' requests, 4XX and 5XX on the dashboard, each line named by its API", () => {
    // Prepare
    const [, dashboard] = resourcesOf(template, "AWS::CloudWatch::Dashboard")[0] ?? [];

    // Act
    const body = JSON.stringify(Stack.of(goalLoops).resolve(dashboard?.Properties.DashboardBody));

    // Assess
    for (const label of ["IAM requests", "JWT requests", "IAM 4XX", "JWT 4XX", "IAM 5XX", "JWT 5XX"]) {
      expect(body).toContain(label);
    }
  });
});
