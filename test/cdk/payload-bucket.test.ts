import { RemovalPolicy, Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { AccountRootPrincipal, Role } from "aws-cdk-lib/aws-iam";
import { Key } from "aws-cdk-lib/aws-kms";
import { beforeAll, describe, expect, it } from "vitest";
import { GoalTable, type GoalTableProps } from "../../lib/constructs/goal-table";
import {
  PayloadBucket,
  type PayloadSettings,
  PayloadSettingsSchema,
  parsePayloadSettings,
} from "../../lib/constructs/payload-bucket";
import { GoalLoopsStack } from "../../lib/goal-loops-stack";
import { constructTestApp, unbundledTestApp } from "./construct-test-app";
import {
  allowedActionsOf,
  allowStatementsOf,
  arnOf,
  onlyResource,
  resourcesAllowed,
  resourcesOf,
  roleOf,
  type TemplateResource,
} from "./template-queries";

interface Synthesized {
  readonly template: Template;
  readonly goalTable: GoalTable;
  readonly bucketId: string;
  readonly keyId: string;
}

/** One stack with a GoalTable, a role granted read/write (`Writer`) and one granted read (`Reader`). */
function synthesize(props?: GoalTableProps): Synthesized {
  const stack = new Stack(constructTestApp(), "TestStack");
  const goalTable = new GoalTable(stack, "GoalTable", props);
  goalTable.grantReadWriteData(new Role(stack, "Writer", { assumedBy: new AccountRootPrincipal() }));
  goalTable.grantReadData(new Role(stack, "Reader", { assumedBy: new AccountRootPrincipal() }));
  const template = Template.fromStack(stack);
  const [bucketId] = onlyResource(template, "AWS::S3::Bucket");
  const [keyId] = onlyResource(template, "AWS::KMS::Key");
  return { template, goalTable, bucketId, keyId };
}

/** Every action of every Allow statement the role's policies hold. */
function actionsOf(template: Template, roleIdPrefix: string): string[] {
  const [roleId] = onlyResource(template, "AWS::IAM::Role", roleIdPrefix);
  return allowStatementsOf(template, roleId).flatMap((statement) => statement.actions);
}

function lifecycleRulesOf(bucket: TemplateResource): unknown {
  return (bucket.Properties.LifecycleConfiguration as { Rules?: unknown } | undefined)?.Rules;
}

describe("GoalTable's payload bucket with default settings", () => {
  let synthesized: Synthesized;

  beforeAll(() => {
    // Prepare + Act
    synthesized = synthesize();
  });

  it("is the construct Payloads of the goal table, so its logical ID starts with GoalTablePayloads", () => {
    // Assess
    expect(synthesized.goalTable.payloadBucket).toBeInstanceOf(PayloadBucket);
    expect(synthesized.goalTable.node.tryFindChild("Payloads")).toBe(synthesized.goalTable.payloadBucket);
    expect(synthesized.bucketId).toMatch(/^GoalTablePayloadsBucket[0-9A-F]{8}$/);
  });

  it("encrypts with the goal table's own KMS key (aws:kms) and an S3 Bucket Key", () => {
    // Assess
    synthesized.template.hasResourceProperties("AWS::S3::Bucket", {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          {
            ServerSideEncryptionByDefault: {
              SSEAlgorithm: "aws:kms",
              KMSMasterKeyID: { "Fn::GetAtt": [synthesized.keyId, "Arn"] },
            },
            BucketKeyEnabled: true,
          },
        ],
      },
    });
    synthesized.template.hasResourceProperties("AWS::DynamoDB::Table", {
      SSESpecification: { KMSMasterKeyId: { "Fn::GetAtt": [synthesized.keyId, "Arn"] } },
    });
  });

  it("blocks all public access, turns ACLs off (bucket owner enforced) and keeps no versions", () => {
    // Act
    const [, bucket] = onlyResource(synthesized.template, "AWS::S3::Bucket");

    // Assess
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.Properties.OwnershipControls).toEqual({
      Rules: [{ ObjectOwnership: "BucketOwnerEnforced" }],
    });
    expect(bucket.Properties.VersioningConfiguration).toBeUndefined();
  });

  it("denies every request without TLS, or with TLS older than 1.2, on the bucket and its objects", () => {
    // Prepare
    const [, policy] = onlyResource(synthesized.template, "AWS::S3::BucketPolicy");
    const document = policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] };

    // Act
    const denials = document.Statement.filter((statement) => statement.Effect === "Deny");

    // Assess
    expect(policy.Properties.Bucket).toEqual({ Ref: synthesized.bucketId });
    expect(denials.map((statement) => statement.Condition)).toEqual([
      { Bool: { "aws:SecureTransport": "false" } },
      { NumericLessThan: { "s3:TlsVersion": 1.2 } },
    ]);
    for (const denial of denials) {
      expect(denial).toMatchObject({ Action: "s3:*", Principal: { AWS: "*" } });
      expect([denial.Resource].flat().map((resource) => JSON.stringify(resource))).toEqual([
        JSON.stringify({ "Fn::GetAtt": [synthesized.bucketId, "Arn"] }),
        JSON.stringify({ "Fn::Join": ["", [{ "Fn::GetAtt": [synthesized.bucketId, "Arn"] }, "/*"]] }),
      ]);
    }
    expect(document.Statement.filter((statement) => statement.Effect === "Allow")).toEqual([]);
  });

  it("keeps objects as long as goal items (no retention by default), and aborts multipart uploads left after 1 day", () => {
    // Act
    const [, bucket] = onlyResource(synthesized.template, "AWS::S3::Bucket");

    // Assess
    expect(lifecycleRulesOf(bucket)).toEqual([
      {
        Id: "ExpirePayloads",
        Status: "Enabled",
        AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
      },
    ]);
  });

  it("is retained like the table and its key, and nothing empties it (no auto-delete custom resource)", () => {
    // Assess
    synthesized.template.hasResource("AWS::S3::Bucket", {
      DeletionPolicy: "Retain",
      UpdateReplacePolicy: "Retain",
    });
    expect(Object.keys(synthesized.template.findResources("Custom::S3AutoDeleteObjects"))).toEqual([]);
    expect(JSON.stringify(synthesized.template.toJSON())).not.toContain("auto-delete-objects");
  });

  it("hands a granted function the bucket's name and the default limits with the table's name", () => {
    // Act
    const resolved = Stack.of(synthesized.goalTable).resolve(synthesized.goalTable.environment);

    // Assess
    expect(resolved).toEqual({
      GOAL_TABLE_NAME: { Ref: onlyResource(synthesized.template, "AWS::DynamoDB::Table")[0] },
      PAYLOAD_BUCKET_NAME: { Ref: synthesized.bucketId },
      PAYLOAD_INLINE_MAX_BYTES: "65536",
      PAYLOAD_MAX_BYTES: "52428800",
    });
  });

  it("grantReadWriteData lets the grantee get and put the bucket's objects, with the key use that needs, and nothing else of S3", () => {
    // Prepare
    const [roleId] = onlyResource(synthesized.template, "AWS::IAM::Role", "Writer");
    const statements = allowStatementsOf(synthesized.template, roleId);
    const objects = `${arnOf(synthesized.bucketId)}/*`;
    const key = arnOf(synthesized.keyId);

    // Act
    const s3Actions = statements.flatMap((statement) => statement.actions).filter((a) => a.startsWith("s3:"));

    // Assess
    expect(s3Actions.sort()).toEqual(["s3:GetObject", "s3:PutObject"]);
    expect(resourcesAllowed(statements, "s3:GetObject")).toEqual([objects]);
    expect(resourcesAllowed(statements, "s3:PutObject")).toEqual([objects]);
    expect(resourcesAllowed(statements, "kms:GenerateDataKey")).toEqual([key]);
    expect(resourcesAllowed(statements, "kms:Decrypt")).toContain(key);
  });

  it("grantReadData lets the grantee get and decrypt the bucket's objects but not put them", () => {
    // Prepare
    const [roleId] = onlyResource(synthesized.template, "AWS::IAM::Role", "Reader");
    const statements = allowStatementsOf(synthesized.template, roleId);

    // Act
    const actions = actionsOf(synthesized.template, "Reader");

    // Assess
    expect(resourcesAllowed(statements, "s3:GetObject")).toEqual([`${arnOf(synthesized.bucketId)}/*`]);
    expect(resourcesAllowed(statements, "kms:Decrypt")).toContain(arnOf(synthesized.keyId));
    expect(actions.filter((action) => action.startsWith("s3:"))).toEqual(["s3:GetObject"]);
    expect(actions).not.toContain("kms:GenerateDataKey");
    expect(actions).not.toContain("kms:Encrypt");
  });

  it("grants neither delete, list nor any S3 wildcard action to anyone", () => {
    // Act
    const actions = [
      ...actionsOf(synthesized.template, "Writer"),
      ...actionsOf(synthesized.template, "Reader"),
    ];

    // Assess
    expect(actions.filter((action) => action.startsWith("s3:") && /Delete|List|\*/.test(action))).toEqual([]);
  });
});

describe("GoalTable's payload bucket with settings", () => {
  it("expires objects 14 days after the goals' retention, and never without one", () => {
    // Prepare + Act
    const { template } = synthesize({ goalRetentionDays: 30 });
    const { template: kept } = synthesize({});

    // Assess
    template.hasResourceProperties("AWS::S3::Bucket", {
      LifecycleConfiguration: {
        Rules: [
          Match.objectLike({
            ExpirationInDays: 44,
            AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
          }),
        ],
      },
    });
    const [, bucket] = onlyResource(kept, "AWS::S3::Bucket");
    expect(lifecycleRulesOf(bucket)).toEqual([
      expect.not.objectContaining({ ExpirationInDays: expect.anything() }),
    ]);
  });

  it("hands granted functions the configured inlineMaxBytes and maxBytes", () => {
    // Prepare + Act
    const { goalTable } = synthesize({ payloads: { inlineMaxBytes: 200_000, maxBytes: 1_048_576 } });

    // Assess
    expect(goalTable.environment).toMatchObject({
      PAYLOAD_INLINE_MAX_BYTES: "200000",
      PAYLOAD_MAX_BYTES: "1048576",
    });
  });

  it("is deleted with the table under RemovalPolicy.DESTROY, still without emptying it first", () => {
    // Prepare + Act
    const { template } = synthesize({ removalPolicy: RemovalPolicy.DESTROY });

    // Assess
    template.hasResource("AWS::S3::Bucket", { DeletionPolicy: "Delete", UpdateReplacePolicy: "Delete" });
    expect(Object.keys(template.findResources("Custom::S3AutoDeleteObjects"))).toEqual([]);
  });

  it("uses a key given to the goal table for the bucket as well", () => {
    // Prepare
    const stack = new Stack(constructTestApp(), "KeyStack");
    const key = new Key(stack, "SharedKey", { enableKeyRotation: true });

    // Act
    new GoalTable(stack, "GoalTable", { encryptionKey: key });
    const template = Template.fromStack(stack);

    // Assess
    const [keyId] = onlyResource(template, "AWS::KMS::Key");
    expect(keyId).toMatch(/^SharedKey/);
    template.hasResourceProperties("AWS::S3::Bucket", {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          Match.objectLike({
            ServerSideEncryptionByDefault: Match.objectLike({
              KMSMasterKeyID: { "Fn::GetAtt": [keyId, "Arn"] },
            }),
          }),
        ],
      },
    });
  });

  it.each<[string, PayloadSettings, RegExp]>([
    [
      "inlineMaxBytes below 1,024",
      { inlineMaxBytes: 1023 },
      /payloads\.inlineMaxBytes .*1024 to 350000.*got 1023/,
    ],
    ["inlineMaxBytes above 350,000", { inlineMaxBytes: 350_001 }, /payloads\.inlineMaxBytes .*got 350001/],
    [
      "a fractional inlineMaxBytes",
      { inlineMaxBytes: 2048.5 },
      /payloads\.inlineMaxBytes must be a whole number/,
    ],
    ["maxBytes of 0", { maxBytes: 0 }, /payloads\.maxBytes .*1 to 1073741824.*got 0/],
    ["maxBytes above 1 GiB", { maxBytes: 1_073_741_825 }, /payloads\.maxBytes /],
    [
      "expireAfterDays, which goalRetentionDays replaced",
      { expireAfterDays: 30 } as object,
      /payloads\.expireAfterDays is replaced by data\.goalRetentionDays/,
    ],
  ])("rejects %s before creating anything", (_case, payloads, message) => {
    // Prepare
    const stack = new Stack(constructTestApp(), "BadStack");

    // Act + Assess
    expect(() => new GoalTable(stack, "GoalTable", { payloads })).toThrow(message);
    expect(stack.node.tryFindChild("GoalTable")?.node.children ?? []).toHaveLength(0);
  });
});

describe("PayloadSettingsSchema and parsePayloadSettings", () => {
  it("fills in every default for no settings", () => {
    // Act + Assess
    expect(PayloadSettingsSchema.parse({})).toEqual({
      inlineMaxBytes: 65_536,
      maxBytes: 52_428_800,
    });
    expect(parsePayloadSettings(undefined, "Test")).toEqual(PayloadSettingsSchema.parse({}));
  });

  it("accepts both ends of every range", () => {
    // Act + Assess
    expect(PayloadSettingsSchema.parse({ inlineMaxBytes: 1024, maxBytes: 1 })).toEqual({
      inlineMaxBytes: 1024,
      maxBytes: 1,
    });
    expect(
      PayloadSettingsSchema.parse({
        inlineMaxBytes: 350_000,
        maxBytes: 1_073_741_824,
      }),
    ).toEqual({ inlineMaxBytes: 350_000, maxBytes: 1_073_741_824 });
  });

  it("names every bad field, a misspelt one included, and the construct it was given to", () => {
    // Act
    const parse = () =>
      parsePayloadSettings({ inlineMaxBytes: "64k", expireAfterDay: 30, maxBytes: -1 }, "GoalLoopsStack");

    // Assess
    expect(parse).toThrow(/^GoalLoopsStack: /);
    expect(parse).toThrow(
      /payloads\.inlineMaxBytes must be a whole number of bytes from 1024 to 350000; got '64k'/,
    );
    expect(parse).toThrow(/payloads\.maxBytes must be a whole number of bytes from 1 to 1073741824; got -1/);
    expect(parse).toThrow(
      /payloads\.expireAfterDay is not a setting; known: expireAfterDays, inlineMaxBytes, maxBytes/,
    );
  });

  it("says so when the settings are not an object", () => {
    // Act + Assess
    expect(() => parsePayloadSettings(42, "GoalLoopsStack")).toThrow(
      "GoalLoopsStack: payloads must be an object; got 42",
    );
  });
});

describe("GoalLoopsStack's payloads prop", () => {
  it("fails synth on a bad value, naming the field path and what it expects", () => {
    // Prepare
    const app = unbundledTestApp();

    // Act + Assess
    expect(
      () =>
        new GoalLoopsStack(app, "GoalLoopsStack", { goalLoops: { payloads: { inlineMaxBytes: 500_000 } } }),
    ).toThrow(
      "GoalLoops: payloads.inlineMaxBytes must be a whole number of bytes from 1024 to 350000; got 500000",
    );
  });

  it("reaches the bucket's lifecycle rule and every function of the goal store", () => {
    // Prepare
    const stack = new GoalLoopsStack(unbundledTestApp(), "GoalLoopsStack", {
      goalLoops: {
        payloads: { inlineMaxBytes: 100_000, maxBytes: 10_485_760 },
        data: { goalRetentionDays: 90 },
      },
    });

    // Act
    const template = Template.fromStack(stack);
    const [bucketId, bucket] = onlyResource(template, "AWS::S3::Bucket");
    const all = [...resourcesOf(template, "AWS::Lambda::Function").values()];
    // Every function but the OpenAPI document's, which reads nothing of the goal store (it serves
    // the document generated from the schemas): no payload settings, no bucket grant.
    const isDocument = (fn: (typeof all)[number]) =>
      String(fn.Properties.Description).startsWith("goal-loops OpenAPI document");
    const functions = all.filter((fn) => !isDocument(fn));

    // Assess
    expect(lifecycleRulesOf(bucket)).toEqual([expect.objectContaining({ ExpirationInDays: 104 })]);
    expect(functions.length).toBeGreaterThan(0);
    expect(all.length - functions.length).toBe(1);
    for (const fn of all.filter(isDocument)) {
      expect(JSON.stringify(fn.Properties.Environment)).not.toContain("PAYLOAD_BUCKET_NAME");
      expect(allowedActionsOf(template, roleOf(fn)).resourcesOf("s3:PutObject")).toEqual([]);
    }
    for (const fn of functions) {
      expect((fn.Properties.Environment as { Variables: unknown }).Variables).toMatchObject({
        PAYLOAD_BUCKET_NAME: { Ref: bucketId },
        PAYLOAD_INLINE_MAX_BYTES: "100000",
        PAYLOAD_MAX_BYTES: "10485760",
        GOAL_RETENTION_DAYS: "90",
      });
      // The doors write approval items only, so only approvals' payload objects (door-policies.test.ts).
      const door = /^goal-loops (Slack|email) door:/.test(String(fn.Properties.Description));
      // The pending-approvals probe and the event stream only read.
      const description = String(fn.Properties.Description);
      const readOnly =
        description.startsWith("goal-loops PendingApprovalsProbe") ||
        description.startsWith("goal-loops event stream");
      expect(allowedActionsOf(template, roleOf(fn)).resourcesOf("s3:PutObject")).toEqual(
        readOnly ? [] : [door ? `${arnOf(bucketId)}/APPROVAL/*` : `${arnOf(bucketId)}/*`],
      );
    }
  });
});
