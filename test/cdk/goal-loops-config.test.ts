import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configJsonSchema } from "../../lib/config/config-json-schema";
import { GoalLoopsConfigSchema } from "../../lib/config/goal-loops-config";
import { loadConfigFile, resolveConfig } from "../../lib/config/load-config";
import { GoalLoops } from "../../lib/goal-loops";
import { buildApp } from "../../lib/goal-loops-app";
import { unbundledTestApp } from "./construct-test-app";
import { definitionOf, resourcesOf, stateOf, type TemplateResource } from "./template-queries";

const PROJECT_DIR = join(import.meta.dirname, "..", "..");
const NO_BUNDLING = { "aws:cdk:bundling-stacks": [] };

function functionsOf(template: Template): TemplateResource[] {
  return Object.values(template.findResources("AWS::Lambda::Function")) as TemplateResource[];
}

function environmentOf(fn: TemplateResource): Record<string, unknown> {
  return (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
}

describe("goal-loops.config.json", () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), "goal-loops-config-"));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("is committed with its defaults, and its JSON Schema is the one the zod schema generates", () => {
    // Act
    const committed = loadConfigFile(join(PROJECT_DIR, "goal-loops.config.json"));
    const schema = JSON.parse(
      readFileSync(join(PROJECT_DIR, "lib/config/goal-loops.config.schema.json"), "utf8"),
    );

    // Assess
    expect(committed).toEqual({
      ...GoalLoopsConfigSchema.parse({}),
      $schema: "./lib/config/goal-loops.config.schema.json",
    });
    // Regenerate with `npm run config-schema` after changing lib/config/goal-loops-config.ts.
    expect(schema).toEqual(configJsonSchema());
  });

  it("names the file and every bad field's path, what it expected and what it got", () => {
    // Prepare
    const file = join(folder, "bad.json");
    writeFileSync(
      file,
      JSON.stringify({
        models: { heavy: "global.anthropic.claude-sonnet-5-5", allowed: ["other-model"] },
        approvals: { timeoutSeconds: 5, slak: {} },
        http: { allowedHosts: ["https://api.example.com"] },
      }),
    );

    // Act
    const load = () => loadConfigFile(file);

    // Assess
    expect(load).toThrow(
      `${file}: approvals.timeoutSeconds must be a whole number of seconds from 60 to 2592000; got 5; ` +
        "approvals.slak is not a setting; known: timeoutSeconds, slack, email; " +
        "http.allowedHosts.0 must be a lower-case host name without scheme or port; got 'https://api.example.com'",
    );
  });

  it("refuses a file that is not JSON, and a -c config= file that does not exist, naming it", () => {
    // Prepare
    const broken = join(folder, "broken.json");
    writeFileSync(broken, '{"models": {');

    // Act + Assess
    expect(() => loadConfigFile(broken)).toThrow(new RegExp(`^${broken}: not JSON: `));
    expect(() => resolveConfig({ projectDir: folder, configPath: join(folder, "missing.json") })).toThrow(
      /missing\.json: no such configuration file/,
    );
    expect(resolveConfig({ projectDir: folder }).source).toBe("defaults");
  });

  it("refuses approvers that are not Slack user ids or e-mail addresses, naming each", () => {
    // Prepare
    const file = join(folder, "approvers.json");
    writeFileSync(
      file,
      JSON.stringify({
        approvals: { slack: { approverUserIds: ["U0ANA", "@ana"] }, email: { approvers: ["ops"] } },
      }),
    );

    // Act
    const load = () => loadConfigFile(file);

    // Assess
    expect(load).toThrow(
      `${file}: approvals.slack.approverUserIds.1 must be a Slack user id such as U0123ABCD; got '@ana'; ` +
        "approvals.email.approvers.0 must be an e-mail address; got 'ops'",
    );
  });

  it("refuses a Slack channel map whose key is not a channel id or whose tenant is not a tenant id, naming each", () => {
    // Prepare
    const file = join(folder, "channel-tenants.json");
    writeFileSync(
      file,
      JSON.stringify({
        approvals: {
          slack: { channelTenants: { C0TEAMA: "team-a", "#team-b": "team-b", C0TEAMC: "team c" } },
        },
      }),
    );

    // Act
    const load = () => loadConfigFile(file);

    // Assess
    expect(load).toThrow(
      "approvals.slack.channelTenants key '#team-b' must be a Slack channel id such as C0123ABCD",
    );
    expect(load).toThrow(/approvals\.slack\.channelTenants\.C0TEAMC must be a tenant id/);
  });

  it("refuses heavy or fast models that are not in models.allowed", () => {
    // Act
    const parsed = GoalLoopsConfigSchema.safeParse({
      models: { heavy: "heavy-model", fast: "fast-model", allowed: ["slow-model"] },
    });

    // Assess
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join("."))).toEqual([
      "models.heavy",
      "models.fast",
    ]);
  });
});

describe("the configuration in the synthesized stack", () => {
  let template: Template;
  beforeAll(() => {
    // Prepare + Act: the file `-c config=` names, as `cdk synth` reads it
    const { stack } = buildApp({
      context: {
        ...NO_BUNDLING,
        config: join(PROJECT_DIR, "test/cdk/fixtures/custom.config.json"),
      },
      projectDir: PROJECT_DIR,
    });
    template = Template.fromStack(stack);
  }, 120_000);

  it("gives the loops the configured models, and the API the allow-list", () => {
    // Assess
    const withModels = functionsOf(template).filter((fn) => environmentOf(fn).HEAVY_MODEL_ID !== undefined);
    expect(withModels.length).toBeGreaterThan(0);
    for (const fn of withModels) {
      expect(environmentOf(fn)).toMatchObject({
        HEAVY_MODEL_ID: "eu.anthropic.claude-sonnet-5-5",
        FAST_MODEL_ID: "eu.anthropic.claude-haiku-4-5-20251001-v1:0",
      });
    }
    const api = functionsOf(template).find((fn) => environmentOf(fn).ALLOWED_MODEL_IDS !== undefined);
    expect(
      String(environmentOf(api as TemplateResource).ALLOWED_MODEL_IDS)
        .split(",")
        .sort(),
    ).toEqual([
      "eu.amazon.nova-lite-v1:0",
      "eu.anthropic.claude-haiku-4-5-20251001-v1:0",
      "eu.anthropic.claude-sonnet-5-5",
    ]);
  });

  it("gives the acting functions the allowed hosts and the doors their tenant and approvers", () => {
    // Assess
    const hosts = functionsOf(template)
      .map((fn) => environmentOf(fn).HTTP_ALLOWED_HOSTS)
      .filter((value) => value !== undefined);
    expect(hosts.length).toBeGreaterThan(0);
    for (const value of hosts) expect(value).toBe("api.example.com,status.example.org");
    const slack = functionsOf(template).filter((fn) => environmentOf(fn).SLACK_TENANT_ID !== undefined);
    expect(slack.map((fn) => environmentOf(fn).SLACK_TENANT_ID)).toEqual(["123456789012"]);
    expect(slack.map((fn) => environmentOf(fn).SLACK_APPROVER_USER_IDS)).toEqual(["U0ANA,W0BEN"]);
    // The email door checks links against the list; RequestApproval mails no one else.
    const mailing = functionsOf(template).filter((fn) => environmentOf(fn).EMAIL_APPROVERS !== undefined);
    expect(mailing.map((fn) => environmentOf(fn).EMAIL_APPROVERS)).toEqual([
      "ops@example.com",
      "ops@example.com",
    ]);
  });

  it("waits for approvals as long as approvals.timeoutSeconds says, in every loop", () => {
    // Assess
    const machines = Object.values(
      template.findResources("AWS::StepFunctions::StateMachine"),
    ) as TemplateResource[];
    expect(machines).toHaveLength(3);
    for (const machine of machines) {
      expect(stateOf(definitionOf(machine), "AwaitApproval").TimeoutSeconds).toBe(3600);
    }
  });

  it("expires goal items after data.goalRetentionDays and their payload objects 14 days later", () => {
    // Assess
    template.hasResourceProperties("AWS::S3::Bucket", {
      LifecycleConfiguration: { Rules: [Match.objectLike({ ExpirationInDays: 44, Status: "Enabled" })] },
    });
    for (const fn of resourcesOf(template, "AWS::Lambda::Function").values()) {
      const variables = Reflect.get(Object(fn.Properties.Environment), "Variables") as Record<
        string,
        unknown
      >;
      if (variables?.GOAL_TABLE_NAME !== undefined) expect(variables.GOAL_RETENTION_DAYS).toBe("30");
    }
  });
});

describe("GoalLoops in an app of one's own", () => {
  it("composes everything under the id it is given, from the same object as the file", () => {
    // Prepare
    const app = unbundledTestApp();
    const stack = new Stack(app, "MyPlatform");

    // Act
    const goalLoops = new GoalLoops(stack, "Agents", { approvals: { timeoutSeconds: 600 } });
    const template = Template.fromStack(stack);

    // Assess
    expect(goalLoops.config.approvals.timeoutSeconds).toBe(600);
    template.resourceCountIs("AWS::StepFunctions::StateMachine", 3);
    template.resourceCountIs("AWS::DynamoDB::Table", 1);
    expect(Object.keys(template.findResources("AWS::DynamoDB::Table"))[0]).toMatch(/^AgentsGoalTable/);
  });

  it("throws at synth on a bad prop, naming its path", () => {
    // Prepare
    const stack = new Stack(unbundledTestApp(), "MyPlatform");

    // Act
    const build = () => new GoalLoops(stack, "Agents", { http: { allowedHosts: ["API.example.com:443"] } });

    // Assess
    expect(build).toThrow(
      "GoalLoops: http.allowedHosts.0 must be a lower-case host name without scheme or port; got 'API.example.com:443'",
    );
  });

  it("keeps the logical ids a stack deployed before it existed has (GoalLoopsStack adds it as Default)", () => {
    // Act
    const { stack } = buildApp({ context: NO_BUNDLING, config: {} });
    const template = Template.fromStack(stack);

    // Assess
    expect(Object.keys(template.findResources("AWS::DynamoDB::Table"))).toEqual([
      expect.stringMatching(/^GoalTable[0-9A-F]{8}$/),
    ]);
    expect(Object.keys(template.findResources("AWS::StepFunctions::StateMachine")).sort()).toEqual([
      expect.stringMatching(/^PlanExecuteLoopStateMachine/),
      expect.stringMatching(/^ReactLoopStateMachine/),
      expect.stringMatching(/^ReflexionLoopStateMachine/),
    ]);
  }, 120_000);
});

describe("tools.lambda in the synthesized stack", () => {
  const userArn = "arn:aws:lambda:eu-west-1:123456789012:function:crm-lookup";
  let template: Template;
  beforeAll(() => {
    // Prepare + Act: one entry tool of this project, one function of the user's account
    const { stack } = buildApp({
      context: NO_BUNDLING,
      projectDir: PROJECT_DIR,
      config: {
        tools: {
          lambda: [
            {
              name: "lookup_ticket",
              description: "Look up a ticket",
              entry: "examples/tools/lookup-ticket.ts",
              risk: "read",
            },
            { name: "crm_lookup", description: "Look up a customer", functionArn: userArn },
          ],
        },
      },
    });
    template = Template.fromStack(stack);
  }, 120_000);

  /** Each function's logical id and the Lambda functions its role may invoke. */
  function invokeGrants(): Map<string, string> {
    const grants = new Map<string, string>();
    for (const policy of Object.values(template.findResources("AWS::IAM::Policy"))) {
      const statements = policy.Properties.PolicyDocument.Statement as {
        Action: unknown;
        Resource: unknown;
      }[];
      const invokes = statements.filter((statement) =>
        JSON.stringify(statement.Action).includes("lambda:InvokeFunction"),
      );
      for (const role of policy.Properties.Roles as { Ref: string }[]) {
        if (invokes.length > 0 && !role.Ref.includes("StateMachine"))
          grants.set(role.Ref, JSON.stringify(invokes));
      }
    }
    return grants;
  }

  it("lets exactly the functions that run tool calls invoke exactly the configured tools", () => {
    // Act
    const grants = invokeGrants();
    const [toolId] = Object.keys(template.findResources("AWS::Lambda::Function")).filter((id) =>
      id.startsWith("ToolslookupticketFunction"),
    );

    // Assess
    expect([...grants.keys()].map((role) => role.replace(/Role[0-9A-F]{8}$/, "")).sort()).toEqual([
      "LoopStepsAct",
      "PlanExecuteLoopExecute",
      "ReactLoopVerifyAndReason",
      "ReflexionLoopAttempt",
    ]);
    for (const statements of grants.values()) {
      expect(statements).toContain(userArn);
      expect(statements).toContain(toolId);
      expect(statements).not.toContain('"*"');
    }
  });

  it("deploys an entry tool with a role of its own that may only write its logs and traces", () => {
    // Act
    const [, tool] = Object.entries(template.findResources("AWS::Lambda::Function")).find(([id]) =>
      id.startsWith("ToolslookupticketFunction"),
    ) as [string, TemplateResource];
    const roleId = (tool.Properties.Role as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
    const actions = Object.values(template.findResources("AWS::IAM::Policy"))
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(roleId))
      .flatMap((policy) =>
        (policy.Properties.PolicyDocument.Statement as { Action: unknown }[]).map((s) => s.Action),
      )
      .flat();

    // Assess
    expect(tool.Properties.Timeout).toBe(30);
    expect(new Set(actions)).toEqual(
      new Set([
        "logs:CreateLogStream",
        "logs:PutLogEvents",
        "xray:PutTelemetryRecords",
        "xray:PutTraceSegments",
      ]),
    );
  });

  it("tells the acting functions the tools (USER_TOOLS) and the API their names", () => {
    // Assess
    const acting = functionsOf(template).filter((fn) => environmentOf(fn).USER_TOOLS !== undefined);
    expect(acting).toHaveLength(4);
    const api = functionsOf(template).find((fn) => environmentOf(fn).USER_TOOL_NAMES !== undefined);
    expect(environmentOf(api as TemplateResource).USER_TOOL_NAMES).toBe("lookup_ticket,crm_lookup");
  });

  it("refuses a tool named like a built-in, one with both entry and functionArn, and a missing entry file", () => {
    // Prepare
    const build = (lambda: unknown[]) => () =>
      new GoalLoops(new Stack(unbundledTestApp(), "S"), "G", {
        tools: { lambda } as never,
        projectDir: PROJECT_DIR,
      });

    // Act + Assess
    expect(build([{ name: "notify", description: "d", functionArn: userArn }])).toThrow(
      "GoalLoops: tools.lambda.0.name is the name of a built-in tool; got 'notify'",
    );
    expect(build([{ name: "both", description: "d", functionArn: userArn, entry: "x.ts" }])).toThrow(
      "GoalLoops: tools.lambda.0.entry needs exactly one of entry and functionArn",
    );
    expect(build([{ name: "gone", description: "d", entry: "examples/tools/gone.ts" }])).toThrow(
      /tools\.lambda: tool 'gone': entry examples\/tools\/gone\.ts is no file/,
    );
  });
});
