import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Template } from "aws-cdk-lib/assertions";
import { Queue } from "aws-cdk-lib/aws-sqs";
import { CDK_APP_MODE_CONTEXT, type CloudAssembly } from "aws-cdk-lib/cx-api";
import { beforeAll, describe, expect, it } from "vitest";
import { buildApp, GOAL_LOOPS_STACK_ID } from "../../lib/goal-loops-app";
import type { GoalLoopsStack } from "../../lib/goal-loops-stack";

/** The context `cdk synth` passes, so this test checks exactly what the CLI synthesizes. */
const CDK_JSON_CONTEXT: Record<string, unknown> = JSON.parse(
  readFileSync(new URL("../../cdk.json", import.meta.url), "utf8"),
).context;

interface ReportedViolation {
  readonly ruleName: string;
  readonly severity: string;
  readonly reason?: string;
  readonly violatingConstructs: readonly { readonly constructPath: string }[];
}
interface ValidationReport {
  readonly pluginReports: readonly {
    readonly pluginName: string;
    readonly violations: readonly ReportedViolation[];
    readonly suppressedViolations?: readonly ReportedViolation[];
  }[];
}

function readValidationReport(assembly: CloudAssembly): ValidationReport {
  return JSON.parse(readFileSync(join(assembly.directory, "validation-report.json"), "utf8"));
}

describe("GoalLoopsStack as bin/app.ts builds it", () => {
  let stack: GoalLoopsStack;
  let assembly: CloudAssembly;
  let template: Template;

  beforeAll(() => {
    // Prepare + Act: the one synth of this file; cdk-nag and CDK's template validation run in it
    const built = buildApp({ context: CDK_JSON_CONTEXT });
    stack = built.stack;
    assembly = built.app.synth();
    template = Template.fromStack(stack); // reuses the synthesized assembly
  });

  it("is named GoalLoopsStack, so cdk.out holds GoalLoopsStack.template.json", () => {
    // Assess
    expect(stack.stackName).toBe(GOAL_LOOPS_STACK_ID);
    expect(assembly.getStackArtifact(stack.artifactId).templateFile).toBe("GoalLoopsStack.template.json");
  });

  it("composes one goal table with its key, and one bus with its dead-letter queue", () => {
    // Assess
    template.resourceCountIs("AWS::DynamoDB::Table", 1);
    template.resourceCountIs("AWS::KMS::Key", 1);
    template.resourceCountIs("AWS::Events::EventBus", 1);
    template.resourceCountIs("AWS::SQS::Queue", 1);
    template.hasResource("AWS::DynamoDB::Table", { DeletionPolicy: "Retain" });
  });

  it("outputs the table name and the bus name", () => {
    // Prepare
    const tableIds = Object.keys(template.findResources("AWS::DynamoDB::Table"));
    const busIds = Object.keys(template.findResources("AWS::Events::EventBus"));

    // Assess
    template.hasOutput("GoalTableName", { Value: { Ref: tableIds[0] } });
    template.hasOutput("GoalEventBusName", { Value: { Ref: busIds[0] } });
  });

  it("synthesizes without error annotations", () => {
    // Act
    const messages = assembly.getStackArtifact(stack.artifactId).messages;

    // Assess
    expect(messages.filter((message) => message.level === "error")).toEqual([]);
  });

  it("passes cdk-nag AwsSolutions: no unacknowledged violation, and every acknowledgment has a reason", () => {
    // Act
    const report = readValidationReport(assembly);
    const nag = report.pluginReports.find((plugin) => plugin.pluginName === "AwsSolutions");

    // Assess: warnings count too, because cdk-nag fails synth on a warning when nothing in its
    // report is acknowledged
    expect(report.pluginReports.flatMap((plugin) => plugin.violations)).toEqual([]);
    expect(
      nag?.suppressedViolations?.map((v) => ({
        rule: v.ruleName,
        paths: v.violatingConstructs.map((c) => c.constructPath),
        hasReason: (v.reason ?? "").length > 40,
      })),
    ).toEqual([
      {
        rule: "AwsSolutions-SQS3",
        paths: ["GoalLoopsStack/GoalEventBus/DeadLetterQueue/Resource"],
        hasReason: true,
      },
    ]);
  });
});

describe("cdk-nag in buildApp", () => {
  it("fails synthesis on a resource that breaks an AwsSolutions rule", () => {
    // Prepare: an SQS queue with no dead-letter queue and no TLS-only policy; in-memory app mode
    // puts the validation report into the error (as it is under vitest, where NODE_ENV is "test")
    const { app, stack } = buildApp({ context: { ...CDK_JSON_CONTEXT, [CDK_APP_MODE_CONTEXT]: "inmemory" } });
    new Queue(stack, "NonCompliantQueue");

    // Act + Assess
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS4/);
  });
});
