import type { Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { Secret } from "aws-cdk-lib/aws-secretsmanager";
import { beforeAll, describe, expect, it } from "vitest";
import { SlackDoor, type SlackDoorProps } from "../../lib/constructs/slack-door";
import { doorStack, templateWithGrantedRole } from "./loop-test-support";
import {
  allowStatementsOf,
  allowsService,
  arnOf,
  onlyResource,
  resourcesAllowed,
  resourcesOf,
  roleOf,
} from "./template-queries";

/** A stack with the goals API and the Slack door on it (bundling skipped: the stack test bundles). */
function build(props: Partial<SlackDoorProps> | ((stack: Stack) => Partial<SlackDoorProps>) = {}) {
  const { stack, goalTable, goalEventBus, restApi } = doorStack();
  const extra = typeof props === "function" ? props(stack) : props;
  const make = () => new SlackDoor(stack, "SlackDoor", { goalTable, goalEventBus, restApi, ...extra });
  return { stack, make };
}

function secretIds(template: Template): { signing: string; bot: string } {
  const ids = [...resourcesOf(template, "AWS::SecretsManager::Secret").keys()];
  return {
    signing: ids.find((id) => id.startsWith("SlackDoorSigningSecret")) ?? "",
    bot: ids.find((id) => id.startsWith("SlackDoorBotToken")) ?? "",
  };
}

describe("SlackDoor", () => {
  let template: Template;
  let door: SlackDoor;
  let stack: Stack;

  beforeAll(() => {
    // Prepare + Act: a posting function granted by the door, as the approval gate would be
    const built = build({ defaultChannel: "C0OPS1234", approverUserIds: ["U0ANA", "W0BEN", "U0ANA"] });
    stack = built.stack;
    door = built.make();
    template = templateWithGrantedRole(stack, "PosterRole", (poster) =>
      door.grantPostApprovalMessages(poster),
    );
  });

  it("serves POST /slack/interactions and /slack/commands without API Gateway auth, through its own function", () => {
    // Prepare
    const [functionId] = onlyResource(template, "AWS::Lambda::Function", "SlackDoorHandler");
    const resources = resourcesOf(template, "AWS::ApiGateway::Resource");
    const slackResourceIds = [...resources.entries()]
      .filter(([, resource]) => ["interactions", "commands"].includes(String(resource.Properties.PathPart)))
      .map(([id]) => JSON.stringify({ Ref: id }));

    // Act
    const methods = [...resourcesOf(template, "AWS::ApiGateway::Method").values()];
    const slack = methods.filter((method) =>
      slackResourceIds.includes(JSON.stringify(method.Properties.ResourceId)),
    );
    const others = methods.filter((method) => !slack.includes(method));

    // Assess
    expect(slackResourceIds).toHaveLength(2);
    expect(
      slack.map((method) => [method.Properties.HttpMethod, method.Properties.AuthorizationType]),
    ).toEqual([
      ["POST", "NONE"],
      ["ANY", "NONE"],
      ["POST", "NONE"],
      ["ANY", "NONE"],
    ]);
    for (const method of slack) expect(JSON.stringify(method.Properties.Integration)).toContain(functionId);
    expect(others.map((method) => method.Properties.AuthorizationType)).toEqual(others.map(() => "AWS_IAM"));
  });

  it("creates both secrets and gives the function the table, the signing secret and the bus, nothing else", () => {
    // Prepare
    const [, fn] = onlyResource(template, "AWS::Lambda::Function", "SlackDoorHandler");
    const [tableId] = onlyResource(template, "AWS::DynamoDB::Table");
    const [busId] = onlyResource(template, "AWS::Events::EventBus");
    const secrets = secretIds(template);

    // Act
    const statements = allowStatementsOf(template, roleOf(fn));

    // Assess
    expect(fn.Properties.Environment).toEqual({
      Variables: expect.objectContaining({
        GOAL_TABLE_NAME: { Ref: tableId },
        GOAL_EVENT_BUS_NAME: { Ref: busId },
        SLACK_SIGNING_SECRET_ARN: { Ref: secrets.signing },
        // Bound to the deploying account's tenant unless told otherwise; approvers deduplicated.
        SLACK_TENANT_ID: { Ref: "AWS::AccountId" },
        SLACK_APPROVER_USER_IDS: "U0ANA,W0BEN",
      }),
    });
    expect(JSON.stringify(fn.Properties.Environment)).not.toContain(secrets.bot);
    expect(resourcesAllowed(statements, "secretsmanager:GetSecretValue")).toEqual([`<${secrets.signing}>`]);
    expect(resourcesAllowed(statements, "events:PutEvents")).toEqual([arnOf(busId)]);
    expect(resourcesAllowed(statements, "dynamodb:PutItem")).toEqual([arnOf(tableId)]);
    expect(allowsService(statements, "states")).toBe(false);
  });

  it("grants a posting function the bot token only, and hands it the environment to post", () => {
    // Prepare
    const secrets = secretIds(template);
    const [posterRoleId] = onlyResource(template, "AWS::IAM::Role", "PosterRole");

    // Act
    const statements = allowStatementsOf(template, posterRoleId);
    const environment = stack.resolve(door.notifierEnvironment);

    // Assess
    expect(resourcesAllowed(statements, "secretsmanager:GetSecretValue")).toEqual([`<${secrets.bot}>`]);
    expect(environment).toEqual({
      SLACK_BOT_TOKEN_ARN: { Ref: secrets.bot },
      SLACK_DEFAULT_CHANNEL: "C0OPS1234",
    });
  });

  it("uses an imported signing secret instead of creating one, and binds the workspace to a tenant when told", () => {
    // Prepare
    const arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:slack-signing-AbCdEf";
    const { stack: other, make } = build((scope) => ({
      tenantId: "123456789012",
      signingSecret: Secret.fromSecretCompleteArn(scope, "Imported", arn),
    }));

    // Act
    make();
    const built = Template.fromStack(other);

    // Assess
    const [, fn] = onlyResource(built, "AWS::Lambda::Function", "SlackDoorHandler");
    expect(fn.Properties.Environment).toEqual({
      Variables: expect.objectContaining({ SLACK_SIGNING_SECRET_ARN: arn, SLACK_TENANT_ID: "123456789012" }),
    });
    expect(Object.keys(secretIds(built))).toEqual(["signing", "bot"]);
    expect(secretIds(built).signing).toBe("");
    expect(resourcesAllowed(allowStatementsOf(built, roleOf(fn)), "secretsmanager:GetSecretValue")).toEqual([
      arn,
    ]);
  });

  it("gives the door the channels bound to tenants of their own", () => {
    // Prepare
    const { stack: other, make } = build(() => ({
      channelTenants: { C0TEAMA: "team-a", G0TEAMB: "team-b" },
    }));

    // Act
    make();

    // Assess
    const [, fn] = onlyResource(Template.fromStack(other), "AWS::Lambda::Function", "SlackDoorHandler");
    expect(fn.Properties.Environment).toEqual({
      Variables: expect.objectContaining({
        SLACK_CHANNEL_TENANTS: JSON.stringify({ C0TEAMA: "team-a", G0TEAMB: "team-b" }),
      }),
    });
  });

  it.each([
    [
      { channelTenants: { "#team-a": "team-a" } },
      /channelTenants key '#team-a' must be a Slack channel id such as C0123ABCD/,
    ],
    [
      { channelTenants: { C0TEAMA: "default" } },
      /channelTenants\.C0TEAMA 'default' names the default limits, not a tenant/,
    ],
    [{ defaultChannel: "#ops" }, /defaultChannel must be a Slack channel id/],
    [{ tenantId: "a#b" }, /tenantId must be a tenant id/],
    [{ approverUserIds: ["ana"] }, /approverUserIds must be Slack user ids such as U0123ABCD; got 'ana'/],
  ] satisfies [Partial<SlackDoorProps>, RegExp][])("refuses bad props (%#)", (props, message) => {
    // Act + Assess
    expect(() => build(props).make()).toThrow(message);
  });
});
