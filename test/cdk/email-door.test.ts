import type { Stack } from "aws-cdk-lib";
import type { Template } from "aws-cdk-lib/assertions";
import { EmailIdentity } from "aws-cdk-lib/aws-ses";
import { beforeAll, describe, expect, it } from "vitest";
import { EmailDoor, type EmailDoorProps } from "../../lib/constructs/email-door";
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

const SENDER = "goals@example.test";

/** A stack with the goals API and the email door on it (bundling skipped: the stack test bundles). */
function build(props: Partial<EmailDoorProps> = {}) {
  const { stack, goalTable, goalEventBus, restApi } = doorStack();
  const make = () =>
    new EmailDoor(stack, "EmailDoor", {
      goalTable,
      goalEventBus,
      restApi,
      senderIdentity: EmailIdentity.fromEmailIdentityName(stack, "Sender", SENDER),
      ...props,
    });
  return { stack, make };
}

describe("EmailDoor", () => {
  let template: Template;
  let door: EmailDoor;
  let stack: Stack;

  beforeAll(() => {
    // Prepare + Act: a sending function granted by the door, as the approval gate would be
    const built = build({ approvers: ["ops@example.test", "lead@example.test"] });
    stack = built.stack;
    door = built.make();
    template = templateWithGrantedRole(stack, "SenderRole", (sender) => door.grantSendApprovalEmails(sender));
  });

  it("serves GET and POST /email/approvals/{approvalId} without API Gateway auth, through its own function", () => {
    // Prepare
    const [functionId] = onlyResource(template, "AWS::Lambda::Function", "EmailDoorHandler");
    // The `{approvalId}` under /email/approvals (the goals API has its own under /approvals).
    const resources = [...resourcesOf(template, "AWS::ApiGateway::Resource")];
    const child = (parentId: string, pathPart: string) =>
      resources.find(
        ([, resource]) =>
          resource.Properties.PathPart === pathPart &&
          JSON.stringify(resource.Properties.ParentId) === JSON.stringify({ Ref: parentId }),
      )?.[0] ?? "";
    const [emailId] = resources.find(([, resource]) => resource.Properties.PathPart === "email") ?? [""];
    const resourceId = child(child(emailId, "approvals"), "{approvalId}");

    // Act
    const methods = [...resourcesOf(template, "AWS::ApiGateway::Method").values()].filter(
      (method) => JSON.stringify(method.Properties.ResourceId) === JSON.stringify({ Ref: resourceId }),
    );

    // Assess
    expect(methods.map((method) => method.Properties.HttpMethod).sort()).toEqual(["ANY", "GET", "POST"]);
    for (const method of methods) {
      expect(method.Properties.AuthorizationType).toBe("NONE");
      expect(JSON.stringify(method.Properties.Integration)).toContain(functionId);
    }
    // The goals routes keep IAM auth.
    const others = [...resourcesOf(template, "AWS::ApiGateway::Method").values()].filter(
      (method) => JSON.stringify(method.Properties.ResourceId) !== JSON.stringify({ Ref: resourceId }),
    );
    expect(others.length).toBeGreaterThan(0);
    expect(others.map((method) => method.Properties.AuthorizationType)).toEqual(others.map(() => "AWS_IAM"));
  });

  it("generates the link key in Secrets Manager and gives the function table, secret and bus access only", () => {
    // Prepare
    const [, fn] = onlyResource(template, "AWS::Lambda::Function", "EmailDoorHandler");
    const [secretId] = onlyResource(template, "AWS::SecretsManager::Secret");
    const [tableId] = onlyResource(template, "AWS::DynamoDB::Table");
    const [busId] = onlyResource(template, "AWS::Events::EventBus");

    // Act
    const statements = allowStatementsOf(template, roleOf(fn));

    // Assess
    template.hasResourceProperties("AWS::SecretsManager::Secret", {
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
    expect(fn.Properties.Environment).toEqual({
      Variables: expect.objectContaining({
        GOAL_TABLE_NAME: { Ref: tableId },
        GOAL_EVENT_BUS_NAME: { Ref: busId },
        EMAIL_LINK_SECRET_ARN: { Ref: secretId },
        EMAIL_APPROVERS: "ops@example.test,lead@example.test",
      }),
    });
    expect(resourcesAllowed(statements, "secretsmanager:GetSecretValue")).toEqual([`<${secretId}>`]);
    expect(resourcesAllowed(statements, "events:PutEvents")).toEqual([arnOf(busId)]);
    expect(resourcesAllowed(statements, "dynamodb:PutItem")).toEqual([arnOf(tableId)]);
    expect(allowsService(statements, "ses")).toBe(false);
    expect(allowsService(statements, "states")).toBe(false);
  });

  it("grants a sender ses:SendEmail on the identity and the link key, and hands it the environment to sign links", () => {
    // Prepare
    const [secretId] = onlyResource(template, "AWS::SecretsManager::Secret");
    const [senderRoleId] = onlyResource(template, "AWS::IAM::Role", "SenderRole");

    // Act
    const statements = allowStatementsOf(template, senderRoleId);
    const environment = stack.resolve(door.senderEnvironment);

    // Assess
    expect(resourcesAllowed(statements, "ses:SendEmail").join()).toContain(`identity/${SENDER}`);
    expect(resourcesAllowed(statements, "secretsmanager:GetSecretValue")).toEqual([`<${secretId}>`]);
    expect(environment.EMAIL_FROM).toBe(SENDER);
    expect(environment.EMAIL_LINK_SECRET_ARN).toEqual({ Ref: secretId });
    // The sender mails only these addresses.
    expect(environment.EMAIL_APPROVERS).toBe("ops@example.test,lead@example.test");
    // The URL names the stage literally (no Ref to the stage resource, which would be a cycle).
    expect(JSON.stringify(environment.PUBLIC_API_URL)).toContain("/v1/");
    expect(JSON.stringify(environment.PUBLIC_API_URL)).not.toContain("DeploymentStage");
  });

  it.each([
    [{ fromAddress: "x@example.test", senderIdentity: undefined }, /fromAddress needs a senderIdentity/],
    [{ publicApiUrl: "ftp://example.test" }, /publicApiUrl must be an http/],
    [{ approvers: ["ops@example.test", "ops"] }, /approvers must be e-mail addresses; got 'ops'/],
  ] satisfies [Partial<EmailDoorProps>, RegExp][])("refuses inconsistent props (%#)", (props, message) => {
    // Act + Assess
    expect(() => build(props).make()).toThrow(message);
  });

  it("needs fromAddress when the identity is a domain", () => {
    // Prepare
    const { stack: other, make } = build();
    const domain = EmailIdentity.fromEmailIdentityName(other, "Domain", "example.test");

    // Act + Assess
    expect(() => build({ senderIdentity: domain }).make()).toThrow(/is a domain; pass fromAddress/);
    expect(make).not.toThrow();
  });
});
