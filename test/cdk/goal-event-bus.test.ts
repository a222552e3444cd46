import { Duration, Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { AccountRootPrincipal, Role } from "aws-cdk-lib/aws-iam";
import { beforeAll, describe, expect, it } from "vitest";
import { HUMAN_INPUT_SOURCE } from "../../lambdas/core/human/human-input-events";
import { GoalEventBus, type GoalEventBusProps } from "../../lib/constructs/goal-event-bus";
import { constructTestApp } from "./construct-test-app";

function synthesize(
  props?: GoalEventBusProps,
  extend?: (stack: Stack, goalEventBus: GoalEventBus) => void,
): Template {
  const stack = new Stack(constructTestApp(), "TestStack");
  const goalEventBus = new GoalEventBus(stack, "GoalEventBus", props);
  extend?.(stack, goalEventBus);
  return Template.fromStack(stack);
}

function onlyLogicalId(template: Template, type: string): string {
  const ids = Object.keys(template.findResources(type));
  expect(ids).toHaveLength(1);
  return ids[0] ?? "";
}

describe("GoalEventBus with default props", () => {
  let template: Template;
  let busId: string;
  let queueId: string;

  beforeAll(() => {
    // Prepare: a publisher wired through the construct's grant
    template = synthesize(undefined, (stack, goalEventBus) => {
      goalEventBus.grantPutEvents(new Role(stack, "Publisher", { assumedBy: new AccountRootPrincipal() }));
    });
    busId = onlyLogicalId(template, "AWS::Events::EventBus");
    queueId = onlyLogicalId(template, "AWS::SQS::Queue");
  });

  it("creates one custom event bus", () => {
    // Act + Assess
    template.hasResourceProperties("AWS::Events::EventBus", {
      Name: Match.stringLikeRegexp("GoalEventBus"),
      Description: Match.stringLikeRegexp("human inputs"),
    });
  });

  it("gives its dead-letter queue SSE-SQS encryption and 14 days of retention", () => {
    // Act + Assess
    template.hasResourceProperties("AWS::SQS::Queue", {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
  });

  it("denies every request to the dead-letter queue that does not use TLS", () => {
    // Act + Assess
    template.hasResourceProperties("AWS::SQS::QueuePolicy", {
      Queues: [{ Ref: queueId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Effect: "Deny",
            Principal: { AWS: "*" },
            Action: "sqs:*",
            Resource: { "Fn::GetAtt": [queueId, "Arn"] },
            Condition: { Bool: { "aws:SecureTransport": "false" } },
          },
        ]),
      },
    });
  });

  it("archives human-input events from its own bus for 30 days", () => {
    // Act + Assess
    template.hasResourceProperties("AWS::Events::Archive", {
      SourceArn: { "Fn::GetAtt": [busId, "Arn"] },
      EventPattern: { source: [HUMAN_INPUT_SOURCE] },
      RetentionDays: 30,
    });
    expect(HUMAN_INPUT_SOURCE).toBe("goal-loops.human");
  });

  it("alarms as soon as one message waits in the dead-letter queue", () => {
    // Act + Assess
    template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      Namespace: "AWS/SQS",
      MetricName: "ApproximateNumberOfMessagesVisible",
      Dimensions: [{ Name: "QueueName", Value: { "Fn::GetAtt": [queueId, "QueueName"] } }],
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
      Threshold: 1,
      TreatMissingData: "notBreaching",
    });
  });

  it("grantPutEvents allows events:PutEvents on this bus only", () => {
    // Act + Assess
    template.hasResourceProperties("AWS::IAM::Policy", {
      Roles: [{ Ref: Match.stringLikeRegexp("^Publisher") }],
      PolicyDocument: {
        Statement: [
          { Effect: "Allow", Action: "events:PutEvents", Resource: { "Fn::GetAtt": [busId, "Arn"] } },
        ],
      },
    });
  });
});

describe("GoalEventBus with props", () => {
  it("leaves out the archive and the alarm when asked, and takes a name and a retention", () => {
    // Prepare + Act
    const template = synthesize({
      eventBusName: "goal-loops-human",
      archive: false,
      deadLetterAlarm: false,
      deadLetterRetention: Duration.days(4),
    });

    // Assess
    template.hasResourceProperties("AWS::Events::EventBus", { Name: "goal-loops-human" });
    template.hasResourceProperties("AWS::SQS::Queue", { MessageRetentionPeriod: 4 * 24 * 3600 });
    template.resourceCountIs("AWS::Events::Archive", 0);
    template.resourceCountIs("AWS::CloudWatch::Alarm", 0);
  });

  it.each<[string, GoalEventBusProps, RegExp]>([
    ["the reserved name 'default'", { eventBusName: "default" }, /eventBusName/],
    ["a name with a space", { eventBusName: "goal bus" }, /eventBusName/],
    ["a retention for a disabled archive", { archive: false, archiveRetention: Duration.days(7) }, /archive/],
    ["an archive retention of part of a day", { archiveRetention: Duration.hours(36) }, /archiveRetention/],
    [
      "a dead-letter retention past 14 days",
      { deadLetterRetention: Duration.days(15) },
      /deadLetterRetention/,
    ],
    [
      "a dead-letter retention under a minute",
      { deadLetterRetention: Duration.seconds(30) },
      /deadLetterRetention/,
    ],
  ])("rejects %s before creating anything", (_case, props, message) => {
    // Prepare
    const stack = new Stack(constructTestApp(), "BadStack");

    // Act + Assess
    expect(() => new GoalEventBus(stack, "GoalEventBus", props)).toThrow(message);
    expect(stack.node.tryFindChild("GoalEventBus")?.node.children ?? []).toHaveLength(0);
  });
});
