import { RemovalPolicy, Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { AccountRootPrincipal, Role } from "aws-cdk-lib/aws-iam";
import { Key } from "aws-cdk-lib/aws-kms";
import { beforeAll, describe, expect, it } from "vitest";
import { TABLE_DESIGN } from "../../lambdas/adapters/dynamodb/table-design";
import { GoalTable, type GoalTableProps } from "../../lib/constructs/goal-table";
import { constructTestApp } from "./construct-test-app";

/** Synthesizes one stack holding a GoalTable, plus whatever `extend` adds beside it. */
function synthesize(
  props?: GoalTableProps,
  extend?: (stack: Stack, goalTable: GoalTable) => void,
): { template: Template; stack: Stack; goalTable: GoalTable } {
  const stack = new Stack(constructTestApp(), "TestStack");
  const goalTable = new GoalTable(stack, "GoalTable", props);
  extend?.(stack, goalTable);
  return { template: Template.fromStack(stack), stack, goalTable };
}

function onlyLogicalId(template: Template, type: string): string {
  const ids = Object.keys(template.findResources(type));
  expect(ids).toHaveLength(1);
  return ids[0] ?? "";
}

describe("GoalTable with default props", () => {
  let template: Template;
  let tableId: string;
  let keyId: string;

  beforeAll(() => {
    // Prepare: a reader and a writer wired through the construct's grants
    ({ template } = synthesize(undefined, (stack, goalTable) => {
      goalTable.grantReadWriteData(new Role(stack, "Writer", { assumedBy: new AccountRootPrincipal() }));
      goalTable.grantReadData(new Role(stack, "Reader", { assumedBy: new AccountRootPrincipal() }));
    }));
    tableId = onlyLogicalId(template, "AWS::DynamoDB::Table");
    keyId = onlyLogicalId(template, "AWS::KMS::Key");
  });

  it("keys the table on string pk (HASH) and sk (RANGE) from TABLE_DESIGN", () => {
    // Act + Assess
    template.hasResourceProperties("AWS::DynamoDB::Table", {
      KeySchema: [
        { AttributeName: TABLE_DESIGN.partitionKey, KeyType: "HASH" },
        { AttributeName: TABLE_DESIGN.sortKey, KeyType: "RANGE" },
      ],
      AttributeDefinitions: Match.arrayEquals([
        { AttributeName: "pk", AttributeType: "S" },
        { AttributeName: "sk", AttributeType: "S" },
        { AttributeName: "gsi1pk", AttributeType: "S" },
        { AttributeName: "gsi1sk", AttributeType: "S" },
      ]),
    });
  });

  it("has exactly the status index gsi1 on gsi1pk/gsi1sk projecting ALL", () => {
    // Act + Assess
    template.hasResourceProperties("AWS::DynamoDB::Table", {
      GlobalSecondaryIndexes: [
        {
          IndexName: "gsi1",
          KeySchema: [
            { AttributeName: "gsi1pk", KeyType: "HASH" },
            { AttributeName: "gsi1sk", KeyType: "RANGE" },
          ],
          Projection: { ProjectionType: "ALL" },
        },
      ],
    });
  });

  it("expires items on the ttl attribute, bills on demand and keeps 35 days of point-in-time recovery", () => {
    // Act + Assess
    template.hasResourceProperties("AWS::DynamoDB::Table", {
      TimeToLiveSpecification: { AttributeName: "ttl", Enabled: true },
      BillingMode: "PAY_PER_REQUEST",
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 35 },
    });
  });

  it("encrypts with its own customer-managed KMS key, which rotates", () => {
    // Act + Assess
    template.hasResourceProperties("AWS::DynamoDB::Table", {
      SSESpecification: {
        SSEEnabled: true,
        SSEType: "KMS",
        KMSMasterKeyId: { "Fn::GetAtt": [keyId, "Arn"] },
      },
    });
    template.hasResourceProperties("AWS::KMS::Key", { EnableKeyRotation: true });
  });

  it("retains the table and its key, and turns deletion protection on", () => {
    // Act + Assess
    template.hasResource("AWS::DynamoDB::Table", {
      DeletionPolicy: "Retain",
      UpdateReplacePolicy: "Retain",
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
    template.hasResource("AWS::KMS::Key", { DeletionPolicy: "Retain", UpdateReplacePolicy: "Retain" });
  });

  it("grantReadWriteData gives item writes on the table and its index and the key use they need", () => {
    // Act
    const policies = template.findResources("AWS::IAM::Policy", {
      Properties: { Roles: [{ Ref: Match.stringLikeRegexp("^Writer") }] },
    });

    // Assess
    expect(Object.keys(policies)).toHaveLength(1);
    template.hasResourceProperties("AWS::IAM::Policy", {
      Roles: [{ Ref: Match.stringLikeRegexp("^Writer") }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: Match.arrayWith(["dynamodb:Query", "dynamodb:PutItem", "dynamodb:UpdateItem"]),
            Resource: Match.arrayWith([
              { "Fn::GetAtt": [tableId, "Arn"] },
              { "Fn::Join": ["", [{ "Fn::GetAtt": [tableId, "Arn"] }, "/index/*"]] },
            ]),
          }),
          Match.objectLike({
            Action: Match.arrayWith(["kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey*"]),
            Resource: { "Fn::GetAtt": [keyId, "Arn"] },
          }),
        ]),
      },
    });
  });

  it("grantReadWriteData and grantReadData never allow Scan, DeleteItem or kms:ReEncrypt*: the store needs none", () => {
    // Act
    const documents = JSON.stringify(
      template.findResources("AWS::IAM::Policy", {
        Properties: { Roles: [{ Ref: Match.stringLikeRegexp("^(Writer|Reader)") }] },
      }),
    );

    // Assess
    expect(documents).toContain("dynamodb:BatchWriteItem");
    for (const action of ["dynamodb:Scan", "dynamodb:DeleteItem", "kms:ReEncrypt", "dynamodb:*"]) {
      expect(documents).not.toContain(action);
    }
  });

  it("grantReadData gives reads and decryption but no writes", () => {
    // Act
    const policies = template.findResources("AWS::IAM::Policy", {
      Properties: { Roles: [{ Ref: Match.stringLikeRegexp("^Reader") }] },
    });

    // Assess
    const documents = JSON.stringify(policies);
    expect(documents).toContain("dynamodb:Query");
    expect(documents).toContain("kms:Decrypt");
    expect(documents).not.toContain("dynamodb:PutItem");
    expect(documents).not.toContain("kms:Encrypt");
  });
});

describe("GoalTable with props", () => {
  it("RemovalPolicy.DESTROY deletes table and key and leaves deletion protection off", () => {
    // Prepare + Act
    const { template } = synthesize({ removalPolicy: RemovalPolicy.DESTROY });

    // Assess
    template.hasResource("AWS::DynamoDB::Table", {
      DeletionPolicy: "Delete",
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
    });
    template.hasResource("AWS::KMS::Key", { DeletionPolicy: "Delete" });
  });

  it("encrypts with a given key instead of creating one", () => {
    // Prepare
    const stack = new Stack(constructTestApp(), "KeyStack");
    const key = new Key(stack, "SharedKey", { enableKeyRotation: true });

    // Act
    new GoalTable(stack, "GoalTable", { encryptionKey: key });
    const template = Template.fromStack(stack);

    // Assess
    const keyId = onlyLogicalId(template, "AWS::KMS::Key");
    expect(keyId).toMatch(/^SharedKey/);
    template.hasResourceProperties("AWS::DynamoDB::Table", {
      SSESpecification: { KMSMasterKeyId: { "Fn::GetAtt": [keyId, "Arn"] } },
    });
  });

  it.each<[string, GoalTableProps, RegExp]>([
    [
      "deletion protection with DESTROY",
      { removalPolicy: RemovalPolicy.DESTROY, deletionProtection: true },
      /deletionProtection/,
    ],
    ["SNAPSHOT, which DynamoDB lacks", { removalPolicy: RemovalPolicy.SNAPSHOT }, /removalPolicy/],
    ["0 days of point-in-time recovery", { pointInTimeRecoveryDays: 0 }, /pointInTimeRecoveryDays/],
    ["36 days of point-in-time recovery", { pointInTimeRecoveryDays: 36 }, /pointInTimeRecoveryDays/],
    ["a fractional recovery period", { pointInTimeRecoveryDays: 1.5 }, /pointInTimeRecoveryDays/],
    ["a table name with a space", { tableName: "goal table" }, /tableName/],
  ])("rejects %s before creating anything", (_case, props, message) => {
    // Prepare
    const stack = new Stack(constructTestApp(), "BadStack");

    // Act + Assess
    expect(() => new GoalTable(stack, "GoalTable", props)).toThrow(message);
    expect(stack.node.tryFindChild("GoalTable")?.node.children ?? []).toHaveLength(0);
  });
});
