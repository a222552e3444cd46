import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import type { GoalLoopsConfigInput } from "../../lib/config/goal-loops-config";
import { GoalLoops } from "../../lib/goal-loops";
import { buildApp } from "../../lib/goal-loops-app";
import { GoalLoopsStack } from "../../lib/goal-loops-stack";
import { unbundledTestApp } from "./construct-test-app";
import { onlyResource, type TemplateResource } from "./template-queries";

/**
 * The settings a deployer chooses for the deployment itself (lib/config/deployment-config.ts):
 * `stackName`, `logs`, `data` and `api`, each set in the file and seen in the template, and the
 * redeploy rule they serve: nothing kept after `cdk destroy` has a name the next stack would reuse.
 */

const PROJECT_DIR = join(import.meta.dirname, "..", "..");
const NO_BUNDLING = { "aws:cdk:bundling-stacks": [] };
const ENV = { account: "123456789012", region: "eu-west-1" };

/** The tools example as deployed: its Lambda tools (with their table) and its MCP server at an https URL. */
function toolsExample(): GoalLoopsConfigInput {
  const example = JSON.parse(
    readFileSync(join(PROJECT_DIR, "examples/goal-loops.tools.config.json"), "utf8"),
  );
  return {
    tools: {
      lambda: example.tools.lambda,
      mcp: [{ name: "everything", url: "https://mcp.example.com/mcp" }],
    },
  };
}

function stackOf(config: GoalLoopsConfigInput): Template {
  const stack = new GoalLoopsStack(unbundledTestApp(), "GoalLoopsStack", {
    env: ENV,
    goalLoops: { ...config, projectDir: PROJECT_DIR },
  });
  return Template.fromStack(stack);
}

/** Resources that stay when their stack is deleted. */
/**
 * Versions are retained so a deploy that publishes the next one leaves goals pinned to the older
 * one running; they do not outlive the stack: deleting a function deletes its versions, deleting a
 * state machine its versions and aliases.
 */
const VERSION_TYPES = ["AWS::Lambda::Version", "AWS::StepFunctions::StateMachineVersion"];

function retained(template: Template): [string, TemplateResource][] {
  const resources = template.toJSON().Resources as Record<
    string,
    TemplateResource & { DeletionPolicy?: string }
  >;
  return Object.entries(resources).filter(
    ([, resource]) =>
      !VERSION_TYPES.includes(resource.Type) &&
      ["Retain", "RetainExceptOnCreate", "Snapshot"].includes(resource.DeletionPolicy ?? "Delete"),
  );
}

/** The name a resource is given in the template (`LogGroupName`, `TableName`, a `Name` …), if any. */
function physicalName(resource: TemplateResource): unknown {
  const entry = Object.entries(resource.Properties ?? {}).find(([key]) => key.endsWith("Name"));
  return entry?.[1];
}

describe("deployment settings", () => {
  let defaults: Template;
  let chosen: Template;

  beforeAll(() => {
    // Prepare + Act: every default, and every deployment setting chosen (with a tool table)
    defaults = stackOf(toolsExample());
    chosen = stackOf({
      ...toolsExample(),
      logs: { retentionDays: 90, removalPolicy: "destroy" },
      data: { removalPolicy: "destroy" },
      api: { throttling: { rateLimit: 20, burstLimit: 40 }, manageAccountCloudWatchRole: true },
    });
  }, 120_000);

  it("stackName names the stack and its template, and the names built from it", () => {
    // Act
    const { stack } = buildApp({ context: NO_BUNDLING, config: { stackName: "goals-staging" } });
    const { stack: unnamed } = buildApp({ context: NO_BUNDLING, config: {} });

    // Assess: a second stack beside the first, in the same account and region
    expect(stack.stackName).toBe("goals-staging");
    expect(stack.templateFile).toBe("goals-staging.template.json");
    expect(stack.goalLoops.reactLoop.stateMachineName).toBe("goals-staging-react");
    expect(unnamed.stackName).toBe("GoalLoopsStack");
  });

  it("refuses a stackName CloudFormation would refuse, naming it", () => {
    // Act + Assess
    expect(() => buildApp({ context: NO_BUNDLING, config: { stackName: "goals_staging" } })).toThrow(
      "stackName must be a CloudFormation stack name: a letter, then up to 63 letters, digits or -; got 'goals_staging'",
    );
  });

  it("logs.retentionDays and logs.removalPolicy reach every log group of the stack", () => {
    // Act
    const groups = (template: Template) =>
      Object.values(template.findResources("AWS::Logs::LogGroup")) as (TemplateResource & {
        DeletionPolicy?: string;
      })[];

    // Assess: the functions', the tools', the state machines' and the API's access log alike
    expect(groups(defaults).length).toBeGreaterThan(20);
    for (const group of groups(defaults)) {
      expect(group.Properties.RetentionInDays).toBe(30);
      expect(group.DeletionPolicy).toBe("Retain");
    }
    for (const group of groups(chosen)) {
      expect(group.Properties.RetentionInDays).toBe(90);
      expect(group.DeletionPolicy).toBe("Delete");
    }
  });

  it("refuses a retention CloudWatch Logs does not offer, naming the field", () => {
    // Act + Assess
    expect(
      () => new GoalLoops(new Stack(unbundledTestApp(), "S"), "G", { logs: { retentionDays: 45 } }),
    ).toThrow(
      /GoalLoops: logs\.retentionDays must be a retention CloudWatch Logs accepts: 1, 3, 5, .* \(days\); got 45/,
    );
  });

  it("data.removalPolicy decides whether the goal table, its key, the payload bucket and the tools' tables outlive the stack", () => {
    // Act
    const policies = (template: Template) =>
      ["AWS::DynamoDB::Table", "AWS::KMS::Key", "AWS::S3::Bucket", "AWS::DynamoDB::GlobalTable"].flatMap(
        (type) =>
          Object.entries(template.findResources(type))
            .filter(([id]) => !id.startsWith("OperationsAlarmTopicKey"))
            .map(([id, resource]) => [id.replace(/[0-9A-F]{8}$/, ""), resource.DeletionPolicy]),
      );

    // Assess
    expect(Object.fromEntries(policies(defaults))).toEqual({
      GoalTable: "Retain",
      GoalTableKey: "Retain",
      GoalTablePayloadsBucket: "Retain",
      ToolsTabletickets: "Retain",
    });
    expect(Object.fromEntries(policies(chosen))).toEqual({
      GoalTable: "Delete",
      GoalTableKey: "Delete",
      GoalTablePayloadsBucket: "Delete",
      ToolsTabletickets: "Delete",
    });
    // A table the stack may delete has no deletion protection to stop it.
    expect(onlyResource(defaults, "AWS::DynamoDB::Table")[1].Properties.DeletionProtectionEnabled).toBe(true);
    expect(onlyResource(chosen, "AWS::DynamoDB::Table")[1].Properties.DeletionProtectionEnabled).toBe(false);
  });

  it("api.throttling sets the stage's steady rate and burst", () => {
    // Assess
    const throttled = (rate: number, burst: number) => ({
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          HttpMethod: "*",
          ResourcePath: "/*",
          ThrottlingRateLimit: rate,
          ThrottlingBurstLimit: burst,
        }),
      ]),
    });
    defaults.hasResourceProperties("AWS::ApiGateway::Stage", throttled(50, 100));
    chosen.hasResourceProperties("AWS::ApiGateway::Stage", throttled(20, 40));
  });

  it("refuses throttling API Gateway would not take, naming the fields", () => {
    // Act + Assess
    expect(
      () =>
        new GoalLoops(new Stack(unbundledTestApp(), "S"), "G", {
          api: { throttling: { rateLimit: 0, burstLimit: 1.5 } },
        }),
    ).toThrow(
      "GoalLoops: api.throttling.rateLimit must be a number of requests per second above 0, at most 10000; got 0; " +
        "api.throttling.burstLimit must be a whole number of requests from 1 to 5000; got 1.5",
    );
  });

  it("leaves the account's API Gateway CloudWatch role alone unless api.manageAccountCloudWatchRole", () => {
    // Assess: by default no account-wide setting is taken over
    defaults.resourceCountIs("AWS::ApiGateway::Account", 0);
    expect(JSON.stringify(defaults.findResources("AWS::IAM::Role"))).not.toContain(
      "AmazonAPIGatewayPushToCloudWatchLogs",
    );
    // Asked for: the account points at a role of the stack's, kept after it (the setting would
    // otherwise point at a deleted role, and every REST API of the region would stop logging)
    const [roleId, role] = onlyResource(chosen, "AWS::IAM::Role", "GoalsApiRestApiCloudWatchRole");
    expect((role as { DeletionPolicy?: string }).DeletionPolicy).toBe("Retain");
    chosen.hasResourceProperties("AWS::ApiGateway::Account", {
      CloudWatchRoleArn: { "Fn::GetAtt": [roleId, "Arn"] },
    });
  });

  it("keeps nothing after cdk destroy under a name the next stack would reuse: each retained, named resource is listed and justified", () => {
    // Prepare: why each may keep its name when its stack is deleted
    const JUSTIFIED: Record<string, string> = {
      ReactLoopStateMachineLogGroup: "its name ends with the stack instance's id",
      PlanExecuteLoopStateMachineLogGroup: "its name ends with the stack instance's id",
      ReflexionLoopStateMachineLogGroup: "its name ends with the stack instance's id",
    };

    // Act
    const named = retained(defaults).filter(([, resource]) => physicalName(resource) !== undefined);

    // Assess
    expect(named.map(([id]) => id.replace(/[0-9A-F]{8}$/, "")).sort()).toEqual(Object.keys(JUSTIFIED).sort());
    for (const [, resource] of named) {
      // `…-<first 8 hex digits of AWS::StackId>`: a new stack instance gets a new name
      expect(JSON.stringify(physicalName(resource))).toContain('{"Ref":"AWS::StackId"}');
    }
    // Every other retained resource has a name CloudFormation generates (unique per stack instance).
    expect(retained(defaults).length).toBeGreaterThan(named.length);
  });

  it("with logs and data destroyed, keeps only the API Gateway account role it was asked to manage", () => {
    // Act
    const kept = retained(chosen).map(
      ([id, resource]) => `${resource.Type} ${id.replace(/[0-9A-F]{8}$/, "")}`,
    );

    // Assess
    expect(kept.sort()).toEqual([
      "AWS::ApiGateway::Account GoalsApiRestApiAccount",
      "AWS::IAM::Role GoalsApiRestApiCloudWatchRole",
    ]);
  });

  it("deletes the deadline schedule group with the stack: its schedules target the stack's own bus", () => {
    // Act
    const [, group] = onlyResource(defaults, "AWS::Scheduler::ScheduleGroup");

    // Assess
    expect((group as { DeletionPolicy?: string }).DeletionPolicy).toBe("Delete");
  });
});

describe("URLs Lambda cannot reach", () => {
  it("are refused by a deployable synth, naming each field", () => {
    // Act + Assess
    expect(
      () =>
        new GoalLoops(new Stack(unbundledTestApp(), "S"), "G", {
          http: { allowedHosts: ["127.0.0.1"] },
          tools: { mcp: [{ name: "everything", url: "http://127.0.0.1:3001/mcp" }] },
          notify: { channels: { pager: { type: "webhook", url: "http://127.0.0.1:3002/hook" } } },
        }),
    ).toThrow(
      "GoalLoops: tools.mcp.0.url 'http://127.0.0.1:3001/mcp' is a loopback address, which Lambda cannot reach once deployed; " +
        "notify.channels.pager.url 'http://127.0.0.1:3002/hook' is a loopback address, which Lambda cannot reach once deployed. " +
        "Give a URL reachable from Lambda (https://…); loopback URLs work only in the local stack (npm start -- --config <file>).",
    );
    expect(
      () =>
        new GoalLoops(new Stack(unbundledTestApp(), "S"), "G", {
          tools: { mcp: [{ name: "metadata", url: "https://169.254.169.254/mcp" }] },
        }),
    ).toThrow("tools.mcp.0.url 'https://169.254.169.254/mcp' is a link-local address");
  });

  it("are accepted by the local runtime's synth (context goal-loops:local)", () => {
    // Prepare
    const app = unbundledTestApp();
    app.node.setContext("goal-loops:local", "true");

    // Act
    const goalLoops = new GoalLoops(new Stack(app, "S"), "G", {
      tools: { mcp: [{ name: "everything", url: "http://127.0.0.1:3001/mcp" }] },
    });

    // Assess
    expect(goalLoops.config.tools.mcp[0]?.url).toBe("http://127.0.0.1:3001/mcp");
  });
});

describe("api.auth", () => {
  const jwt = { issuer: "https://issuer.example.com/", audience: "goal-loops", tenantClaim: "tenant" };

  it("refuses modes jwt and iam+jwt without the issuer's settings, naming the field", () => {
    // Act + Assess
    for (const mode of ["jwt", "iam+jwt"] as const) {
      expect(
        () => new GoalLoops(new Stack(unbundledTestApp(), "S"), "G", { api: { auth: { mode } } }),
      ).toThrow(`api.auth.jwt mode ${mode} needs the issuer's settings here`);
    }
  });

  it("iam+jwt outputs both URLs, each its own API's stage; jwt outputs one", () => {
    // Act
    const both = stackOf({ api: { auth: { mode: "iam+jwt", jwt } } });
    const jwtOnly = stackOf({ api: { auth: { mode: "jwt", jwt } } });

    // Assess
    const stageUrlOf = (template: Template, output: string) =>
      JSON.stringify(template.findOutputs(output)[output]?.Value);
    const [iamApiId] = onlyResource(both, "AWS::ApiGateway::RestApi", "GoalsApiRestApi");
    const [jwtApiId] = onlyResource(both, "AWS::ApiGateway::RestApi", "GoalsApiJwtRestApi");
    expect(stageUrlOf(both, "GoalsApiUrl")).toContain(`"Ref":"${iamApiId}"`);
    expect(stageUrlOf(both, "JwtApiUrl")).toContain(`"Ref":"${jwtApiId}"`);
    both.resourceCountIs("AWS::ApiGateway::RestApi", 2);
    expect(Object.keys(jwtOnly.findOutputs("JwtApiUrl"))).toEqual([]);
    jwtOnly.resourceCountIs("AWS::ApiGateway::RestApi", 1);
  });
});
