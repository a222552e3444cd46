import { Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { EmailDoor } from "../../lib/constructs/email-door";
import { SlackDoor } from "../../lib/constructs/slack-door";
import { doorStack } from "./loop-test-support";
import { type AllowStatement, allowStatementsOf, arnOf, onlyResource, roleOf } from "./template-queries";

/** The services whose statements make up a function's access to the goal store. */
const STORE_SERVICES = ["dynamodb:", "s3:", "kms:"];

/** Calls that list or remove items: never given to a function that faces the internet. */
const FORBIDDEN = [
  "dynamodb:Scan",
  "dynamodb:Query",
  "dynamodb:DeleteItem",
  "dynamodb:BatchWriteItem",
  "dynamodb:BatchGetItem",
  "dynamodb:UpdateItem",
  "s3:DeleteObject",
  "s3:ListBucket",
];

function storeStatements(statements: readonly AllowStatement[]): AllowStatement[] {
  return statements
    .filter((statement) =>
      statement.actions.some((action) => STORE_SERVICES.some((s) => action.startsWith(s))),
    )
    .map((statement) => ({ ...statement, actions: [...statement.actions].sort() }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

function leadingKeys(...prefixes: string[]) {
  return { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": prefixes.map((prefix) => `${prefix}*`) } };
}

describe("the doors' access to the goal store (least privilege, issue #18 item 5)", () => {
  let template: Template;
  let ids: { table: string; bucket: string; key: string };

  beforeAll(() => {
    // Prepare + Act: both doors on one goals API, as GoalLoops composes them
    const { stack, goalTable, goalEventBus, restApi } = doorStack();
    new SlackDoor(stack, "SlackDoor", { goalTable, goalEventBus, restApi, approverUserIds: ["U0ANA"] });
    new EmailDoor(stack, "EmailDoor", { goalTable, goalEventBus, restApi, approvers: ["ops@example.test"] });
    template = Template.fromStack(stack);
    ids = {
      table: onlyResource(template, "AWS::DynamoDB::Table")[0],
      bucket: onlyResource(template, "AWS::S3::Bucket")[0],
      key: onlyResource(template, "AWS::KMS::Key")[0],
    };
  });

  function statementsOf(functionPrefix: string): AllowStatement[] {
    const [, fn] = onlyResource(template, "AWS::Lambda::Function", functionPrefix);
    return allowStatementsOf(template, roleOf(fn));
  }

  /** The key, only through DynamoDB and S3 of the stack's region. */
  function keyStatement(actions: string[]): AllowStatement {
    return {
      actions: actions.sort(),
      resources: [arnOf(ids.key)],
      conditions: {
        StringEquals: {
          "kms:ViaService": ["dynamodb.<AWS::Region>.<AWS::URLSuffix>", "s3.<AWS::Region>.<AWS::URLSuffix>"],
        },
      },
    };
  }

  const objects = (prefix: string) => `${arnOf(ids.bucket)}/${prefix}/*`;

  it("gives the Slack door GetItem on goals and approvals, PutItem on approvals and its replay items, by key prefix", () => {
    // Act
    const statements = storeStatements(statementsOf("SlackDoorHandler"));

    // Assess
    expect(statements).toEqual(
      storeStatements([
        {
          actions: ["dynamodb:GetItem"],
          resources: [arnOf(ids.table)],
          conditions: leadingKeys("GOAL#", "APPROVAL#"),
        },
        {
          actions: ["dynamodb:PutItem"],
          resources: [arnOf(ids.table)],
          conditions: leadingKeys("APPROVAL#", "SLACK#"),
        },
        { actions: ["s3:GetObject"], resources: [objects("GOAL"), objects("APPROVAL")] },
        // The replay guard's items are a key and a TTL: never offloaded, so no SLACK/ objects.
        { actions: ["s3:PutObject"], resources: [objects("APPROVAL")] },
        keyStatement(["kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey"]),
      ]),
    );
  });

  it("gives the email door GetItem on goals and approvals and PutItem on approvals, by key prefix", () => {
    // Act
    const statements = storeStatements(statementsOf("EmailDoorHandler"));

    // Assess
    expect(statements).toEqual(
      storeStatements([
        {
          actions: ["dynamodb:GetItem"],
          resources: [arnOf(ids.table)],
          conditions: leadingKeys("GOAL#", "APPROVAL#"),
        },
        {
          actions: ["dynamodb:PutItem"],
          resources: [arnOf(ids.table)],
          conditions: leadingKeys("APPROVAL#"),
        },
        { actions: ["s3:GetObject"], resources: [objects("GOAL"), objects("APPROVAL")] },
        { actions: ["s3:PutObject"], resources: [objects("APPROVAL")] },
        keyStatement(["kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey"]),
      ]),
    );
  });

  it.each(["SlackDoorHandler", "EmailDoorHandler"])(
    "never lets %s scan, query, delete or batch-write, nor touch an index or every object",
    (functionPrefix) => {
      // Act
      const statements = statementsOf(functionPrefix);
      const actions = statements.flatMap((statement) => statement.actions);
      const resources = statements.flatMap((statement) => statement.resources);

      // Assess
      for (const action of FORBIDDEN) expect(actions).not.toContain(action);
      expect(actions.filter((action) => action.includes("*"))).toEqual([]);
      expect(resources.filter((resource) => resource.includes("/index/"))).toEqual([]);
      expect(resources).not.toContain(`${arnOf(ids.bucket)}/*`);
      // Every DynamoDB statement is limited by partition key.
      for (const statement of statements.filter((s) => s.actions.some((a) => a.startsWith("dynamodb:")))) {
        expect(JSON.stringify(statement.conditions)).toContain("dynamodb:LeadingKeys");
      }
    },
  );
});
