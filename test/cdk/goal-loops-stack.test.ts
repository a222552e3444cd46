import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { Template } from "aws-cdk-lib/assertions";
import { Queue } from "aws-cdk-lib/aws-sqs";
import { CDK_APP_MODE_CONTEXT, type CloudAssembly } from "aws-cdk-lib/cx-api";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildApp, GOAL_LOOPS_STACK_ID } from "../../lib/goal-loops-app";
import { GOAL_LOOPS_OUTPUTS, type GoalLoopsStack } from "../../lib/goal-loops-stack";
import { SHARED_STEPS } from "./loop-test-support";
import {
  allowedActionsOf,
  allowStatementsOf,
  arnOf,
  aslValidationErrors,
  definitionOf,
  flattenReferences,
  onlyResource,
  rawStatementsOf,
  resourcesAllowed,
  resourcesOf,
  roleOf,
  stateOf,
  type TemplateResource,
} from "./template-queries";

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
  }, 180_000); // bundling every function takes close to a minute alone, longer under the full suite's load

  it("is named GoalLoopsStack, so cdk.out holds GoalLoopsStack.template.json", () => {
    // Assess
    expect(stack.stackName).toBe(GOAL_LOOPS_STACK_ID);
    expect(assembly.getStackArtifact(stack.artifactId).templateFile).toBe("GoalLoopsStack.template.json");
  });

  it("publishes a retained version of every function and of each pattern's state machine, each behind a live alias", () => {
    // Prepare
    const raw = template.toJSON().Resources as Record<string, { DeletionPolicy?: string }>;
    const functions = [...resourcesOf(template, "AWS::Lambda::Function").keys()];
    const lambdaVersions = [...resourcesOf(template, "AWS::Lambda::Version")];
    const lambdaAliases = [...resourcesOf(template, "AWS::Lambda::Alias").values()];
    const machines = [...resourcesOf(template, "AWS::StepFunctions::StateMachine").keys()];
    const machineVersions = [...resourcesOf(template, "AWS::StepFunctions::StateMachineVersion")];
    const machineAliases = [...resourcesOf(template, "AWS::StepFunctions::StateMachineAlias").values()];

    // Assess: one version per function, retained, and its live alias names it
    expect(lambdaVersions.map(([, version]) => version.Properties.FunctionName).sort()).toEqual(
      functions.map((id) => ({ Ref: id })).sort(),
    );
    for (const [versionId, version] of lambdaVersions) {
      expect(raw[versionId]?.DeletionPolicy, versionId).toBe("Retain");
      expect(lambdaAliases).toContainEqual(
        expect.objectContaining({
          Properties: {
            Name: "live",
            FunctionName: version.Properties.FunctionName,
            FunctionVersion: { "Fn::GetAtt": [versionId, "Version"] },
            Description: expect.any(String),
          },
        }),
      );
    }
    // One version per pattern's state machine, retained, described by the deploy, behind `live`
    expect(machineVersions.map(([, version]) => version.Properties.StateMachineArn).sort()).toEqual(
      machines.map((id) => ({ Ref: id })).sort(),
    );
    const labels = new Set<string>();
    for (const [versionId, version] of machineVersions) {
      expect(raw[versionId]?.DeletionPolicy, versionId).toBe("Retain");
      const description = String(version.Properties.Description);
      expect(description).toMatch(/^goal-loops version \d+\.\d+\.\d+-[0-9a-f]{8} record schema \d+$/);
      labels.add(description);
      expect(machineAliases).toContainEqual(
        expect.objectContaining({
          Properties: expect.objectContaining({
            Name: "live",
            RoutingConfiguration: [
              { StateMachineVersionArn: { "Fn::GetAtt": [versionId, "Arn"] }, Weight: 100 },
            ],
          }),
        }),
      );
    }
    // Every pattern of one deploy carries the same label: a sub-goal finds its parent's by it.
    expect(labels.size).toBe(1);
  });

  it("composes the goal table, the bus, the shared steps, the three loops and the goals API", () => {
    // Assess
    template.resourceCountIs("AWS::DynamoDB::Table", 1);
    // The table's key and the alarm topic's (Operations).
    template.resourceCountIs("AWS::KMS::Key", 2);
    template.resourceCountIs("AWS::S3::Bucket", 1);
    template.resourceCountIs("AWS::Events::EventBus", 1);
    template.resourceCountIs("AWS::SQS::Queue", 1);
    template.hasResource("AWS::DynamoDB::Table", { DeletionPolicy: "Retain" });
    template.resourceCountIs("AWS::StepFunctions::StateMachine", 3);
    // 7 shared steps, the patterns' own steps, the API with its event stream and OpenAPI document,
    // resume handler, email and Slack doors, and Operations' pending-approvals probe.
    const patternSteps = Object.values(LOOPS).flat().length;
    template.resourceCountIs("AWS::Lambda::Function", SHARED_STEPS.length + patternSteps + 7);
    template.resourceCountIs("AWS::ApiGateway::RestApi", 1);
    for (const suffix of ["react", "plan-execute", "reflexion"]) {
      template.hasResourceProperties("AWS::StepFunctions::StateMachine", {
        StateMachineName: `GoalLoopsStack-${suffix}`,
      });
    }
  });

  it("synthesizes one JSONPath state machine per pattern, each accepted by asl-validator", () => {
    // Act
    const machines = [...resourcesOf(template, "AWS::StepFunctions::StateMachine").values()];

    // Assess
    expect(machines).toHaveLength(3);
    for (const machine of machines) {
      const definition = definitionOf(machine);
      expect(JSON.stringify(definition)).not.toContain("JSONata");
      expect(aslValidationErrors(definition), String(machine.Properties.StateMachineName)).toBe("");
    }
  });

  it("outputs the table name, the bus name, the state machine ARNs and the API URL under stable names", () => {
    // Prepare
    const [tableId] = onlyResource(template, "AWS::DynamoDB::Table");
    const [busId] = onlyResource(template, "AWS::Events::EventBus");
    const [apiId] = onlyResource(template, "AWS::ApiGateway::RestApi");
    const machine = (loop: string) =>
      onlyResource(template, "AWS::StepFunctions::StateMachine", `${loop}StateMachine`)[0];

    // Assess
    template.hasOutput(GOAL_LOOPS_OUTPUTS.goalTableName, { Value: { Ref: tableId } });
    template.hasOutput(GOAL_LOOPS_OUTPUTS.goalEventBusName, { Value: { Ref: busId } });
    template.hasOutput(GOAL_LOOPS_OUTPUTS.reactStateMachineArn, { Value: { Ref: machine("ReactLoop") } });
    template.hasOutput(GOAL_LOOPS_OUTPUTS.planExecuteStateMachineArn, {
      Value: { Ref: machine("PlanExecuteLoop") },
    });
    template.hasOutput(GOAL_LOOPS_OUTPUTS.reflexionStateMachineArn, {
      Value: { Ref: machine("ReflexionLoop") },
    });
    expect(JSON.stringify(template.findOutputs(GOAL_LOOPS_OUTPUTS.goalsApiUrl))).toContain(apiId);
    // JwtApiUrl only with api.auth.mode iam+jwt (test/cdk/deployment-config.test.ts).
    const { jwtApiUrl: _onlyWithBoth, ...always } = GOAL_LOOPS_OUTPUTS;
    expect(Object.keys(template.findOutputs("*")).sort()).toEqual(Object.values(always).sort());
  });

  it("bundles every function as one ES module (index.mjs) that gives its CommonJS dependencies a require", () => {
    // Prepare
    const CodeSchema = z.object({ Code: z.object({ S3Key: z.string() }), Handler: z.string() });
    const functions = [...resourcesOf(template, "AWS::Lambda::Function").values()].map((fn) =>
      CodeSchema.parse(fn.Properties),
    );

    // Act
    const bundles = functions.map(({ Code }) =>
      join(assembly.directory, `asset.${Code.S3Key.replace(/\.zip$/, "")}`),
    );

    // Assess
    expect(functions.map((fn) => fn.Handler)).toEqual(functions.map(() => "index.handler"));
    for (const bundle of bundles) {
      expect(existsSync(join(bundle, "index.js")), bundle).toBe(false);
      const source = readFileSync(join(bundle, "index.mjs"), "utf8");
      expect(source).toMatch(/^import \{ createRequire as \w+ \} from 'module';/);
      // The SDK is external and loaded with require (aws-sdk-require/), never imported: cheaper cold start.
      expect(source, bundle).not.toMatch(/from\s*["']@aws-sdk\//);
      expect(source, bundle).not.toMatch(/import\(\s*["']@aws-sdk\//);
    }
  });

  it("lets RequestApproval post to Slack and email signed links: the doors' settings and secret reads", () => {
    // Act
    const [, fn] = onlyResource(template, "AWS::Lambda::Function", "LoopStepsRequestApproval");
    const variables = z
      .object({ Environment: z.object({ Variables: z.record(z.string(), z.unknown()) }) })
      .parse(fn.Properties).Environment.Variables;
    const statements = allowStatementsOf(template, roleOf(fn));
    const readable = resourcesAllowed(statements, "secretsmanager:GetSecretValue").join(" ");

    // Assess
    expect(Object.keys(variables)).toEqual(
      expect.arrayContaining(["SLACK_BOT_TOKEN_ARN", "EMAIL_LINK_SECRET_ARN", "PUBLIC_API_URL"]),
    );
    expect(readable).toContain("SlackDoorBotToken");
    expect(readable).toContain("EmailDoorLinkSecret");
    expect(readable).not.toContain("SigningSecret");
  });

  it("lets the resume handler stop, describe and redrive only the three loops' executions", () => {
    // Prepare: the statements of the resume handler's policy, as synthesized
    const [, resumeHandler] = onlyResource(template, "AWS::Lambda::Function", "ResumeHandlerFunction");
    const statements = rawStatementsOf(template, roleOf(resumeHandler));
    const machines = ["ReactLoop", "PlanExecuteLoop", "ReflexionLoop"].map(
      (loop) => onlyResource(template, "AWS::StepFunctions::StateMachine", `${loop}StateMachine`)[0],
    );

    // Assess
    for (const action of ["states:StopExecution", "states:DescribeExecution", "states:RedriveExecution"]) {
      const granting = statements.filter((statement) => [statement.Action].flat().includes(action));
      const resources = JSON.stringify(granting.map((statement) => statement.Resource));
      for (const machine of machines) expect(resources, action).toContain(`{"Ref":"${machine}"}`);
      expect(resources.match(/:execution:/g), action).toHaveLength(machines.length);
      expect(resources, action).not.toContain('"*"');
    }
  });

  it("schedules goal deadlines: the group, a role that may only put events on the bus or dead-letter them, and who may set them", () => {
    // Prepare
    const group = deadlineGroupName(template);
    const [roleId, role] = onlyResource(template, "AWS::IAM::Role", "GoalDeadlinesSchedulerRole");
    const [busId] = onlyResource(template, "AWS::Events::EventBus");
    const [queueId] = onlyResource(template, "AWS::SQS::Queue", "GoalEventBusDeadLetterQueue");
    const schedules = `arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${group}/*`;

    // Assess: EventBridge Scheduler assumes the role, which may put events on the goal bus, and send
    // a delivery it gave up on to the bus's dead-letter queue (whose alarm Operations watches)
    expect(JSON.stringify(role.Properties.AssumeRolePolicyDocument)).toContain("scheduler.amazonaws.com");
    expect(allowStatementsOf(template, roleId)).toEqual([
      { actions: ["events:PutEvents"], resources: [arnOf(busId)] },
      {
        actions: ["sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:SendMessage"],
        resources: [arnOf(queueId)],
      },
    ]);
    for (const prefix of ["GoalsApiHandler", "ResumeHandlerFunction", "LoopStepsRequestApproval"]) {
      const [, fn] = onlyResource(template, "AWS::Lambda::Function", prefix);
      const variables = z
        .object({ Environment: z.object({ Variables: z.record(z.string(), z.unknown()) }) })
        .parse(fn.Properties).Environment.Variables;
      const allowed = (action: string) =>
        rawStatementsOf(template, roleOf(fn))
          .filter((statement) => [statement.Action].flat().includes(action))
          .flatMap((statement) => [statement.Resource].flat().map(flattenReferences));
      expect(variables.DEADLINE_SCHEDULE_GROUP, prefix).toEqual(group);
      expect(flattenReferences(variables.DEADLINE_SCHEDULER_ROLE_ARN), prefix).toBe(arnOf(roleId));
      expect(flattenReferences(variables.GOAL_EVENT_BUS_ARN), prefix).toBe(arnOf(busId));
      expect(flattenReferences(variables.DEADLINE_DEAD_LETTER_ARN), prefix).toBe(arnOf(queueId));
      expect(allowed("scheduler:CreateSchedule"), prefix).toEqual([schedules]);
      expect(allowed("scheduler:UpdateSchedule"), prefix).toEqual([schedules]);
      expect(allowed("iam:PassRole"), prefix).toEqual([arnOf(roleId)]);
    }
  });

  it("keeps large payloads in the goal table's bucket: retained, KMS-encrypted with the table's key, TLS 1.2 only", () => {
    // Prepare
    const [bucketId, bucket] = onlyResource(template, "AWS::S3::Bucket");
    const [keyId] = onlyResource(template, "AWS::KMS::Key", "GoalTableKey");

    // Assess: the construct ID GoalTable/Payloads/Bucket, so its logical ID never moves
    expect(bucketId).toBe("GoalTablePayloadsBucket1323CDBA");
    template.hasResource("AWS::S3::Bucket", { DeletionPolicy: "Retain", UpdateReplacePolicy: "Retain" });
    expect(JSON.stringify(bucket.Properties.BucketEncryption)).toBe(
      JSON.stringify({
        ServerSideEncryptionConfiguration: [
          {
            BucketKeyEnabled: true,
            ServerSideEncryptionByDefault: {
              KMSMasterKeyID: { "Fn::GetAtt": [keyId, "Arn"] },
              SSEAlgorithm: "aws:kms",
            },
          },
        ],
      }),
    );
    const policy = JSON.stringify(onlyResource(template, "AWS::S3::BucketPolicy")[1].Properties);
    expect(policy).toContain('"aws:SecureTransport":"false"');
    expect(policy).toContain('"s3:TlsVersion":1.2');
  });

  it("lets exactly the goal store's functions get and put payload objects, with the PAYLOAD_* settings", () => {
    // Prepare
    const [bucketId] = onlyResource(template, "AWS::S3::Bucket");
    const functions = new Map(
      GOAL_STORE_FUNCTIONS.map((path) => [path, goalStoreFunction(template, path)] as const),
    );
    const functionRoles = new Set([...functions.values()].map((fn) => roleOf(fn)));
    const rolesWithS3 = [...resourcesOf(template, "AWS::IAM::Role").keys()].filter((roleId) =>
      allowedActionsOf(template, roleId).actions.some((action) => action.startsWith("s3:")),
    );

    // Assess: every function that uses the table reads and writes objects (each writes goal-store
    // items), the doors only those of goals and approvals (they write approvals only); Operations'
    // probe only reads them (an offloaded approval item), and no other role has any S3 action
    const probe = goalStoreFunction(template, "Operations/PendingApprovalsProbe");
    const probeS3 = allowedActionsOf(template, roleOf(probe));
    // The event stream only reads too (GoalTable.grantReadData).
    const stream = goalStoreFunction(template, "GoalsApi/EventStream/Handler");
    const streamS3 = allowedActionsOf(template, roleOf(stream));
    // Every function but those two and the OpenAPI document's, which touches no store at all.
    expect(functions.size).toBe(resourcesOf(template, "AWS::Lambda::Function").size - 3);
    expect(rolesWithS3.sort()).toEqual([...functionRoles, roleOf(probe), roleOf(stream)].sort());
    expect(probeS3.actions.filter((action) => action.startsWith("s3:"))).toEqual(["s3:GetObject"]);
    expect(probeS3.resourcesOf("s3:GetObject")).toEqual([`${arnOf(bucketId)}/*`]);
    expect(streamS3.actions.some((action) => action.startsWith("s3:Put"))).toBe(false);
    for (const [path, fn] of functions) {
      const allowed = allowedActionsOf(template, roleOf(fn));
      expect(allowed.actions.filter((action) => action.startsWith("s3:")).sort(), path).toEqual([
        "s3:GetObject",
        "s3:PutObject",
      ]);
      const door = DOORS.includes(path);
      expect(allowed.resourcesOf("s3:GetObject").sort(), path).toEqual(
        door ? [`${arnOf(bucketId)}/APPROVAL/*`, `${arnOf(bucketId)}/GOAL/*`] : [`${arnOf(bucketId)}/*`],
      );
      expect(allowed.resourcesOf("s3:PutObject"), path).toEqual([
        door ? `${arnOf(bucketId)}/APPROVAL/*` : `${arnOf(bucketId)}/*`,
      ]);
      expect(
        z
          .object({ Environment: z.object({ Variables: z.record(z.string(), z.unknown()) }) })
          .parse(fn.Properties).Environment.Variables,
        path,
      ).toMatchObject({
        PAYLOAD_BUCKET_NAME: { Ref: bucketId },
        PAYLOAD_INLINE_MAX_BYTES: "65536",
        PAYLOAD_MAX_BYTES: "52428800",
      });
    }
  });

  it("routes every goal's Deadline Reached to the resume handler", () => {
    // Act
    const [, rule] = onlyResource(template, "AWS::Events::Rule", "ResumeHandlerRule");
    const pattern = z
      .object({ source: z.array(z.string()), "detail-type": z.array(z.string()) })
      .parse(rule.Properties.EventPattern);

    // Assess
    expect(pattern.source).toEqual(expect.arrayContaining(["goal-loops.human", "goal-loops.deadline"]));
    expect(pattern["detail-type"]).toContain("Deadline Reached");
  });

  it("routes every Goal Ended to the resume handler, and lets every step that may end a goal announce it", () => {
    // Prepare
    const [, rule] = onlyResource(template, "AWS::Events::Rule", "ResumeHandlerRule");
    const pattern = z
      .object({ source: z.array(z.string()), "detail-type": z.array(z.string()) })
      .parse(rule.Properties.EventPattern);
    const [busId] = onlyResource(template, "AWS::Events::EventBus");
    const announcing = [
      ...SHARED_STEPS.map((step) => `LoopSteps/${step}`),
      ...Object.entries(LOOPS).flatMap(([loop, steps]) => steps.map((step) => `${loop}/${step}`)),
      "ResumeHandler/Function",
    ];

    // Assess: the rule, and each step's bus name and PutEvents on that bus only
    expect(pattern.source).toContain("goal-loops.goals");
    expect(pattern["detail-type"]).toContain("Goal Ended");
    for (const path of announcing) {
      const fn = goalStoreFunction(template, path);
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables.GOAL_EVENT_BUS_NAME, path).toEqual({ Ref: busId });
      expect(allowedActionsOf(template, roleOf(fn)).resourcesOf("events:PutEvents"), path).toEqual([
        arnOf(busId),
      ]);
    }
  });

  it("lets AwaitSubgoals start and answer runs of exactly the three loops, by name, and tells it their ARNs and bounds", () => {
    // Prepare
    const fn = goalStoreFunction(template, "LoopSteps/AwaitSubgoals");
    const allowed = allowedActionsOf(template, roleOf(fn));
    const machines = ["react", "plan-execute", "reflexion"].map(
      (suffix) =>
        `arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:stateMachine:GoalLoopsStack-${suffix}`,
    );
    const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;

    // Assess
    for (const action of ["states:StartExecution", "states:SendTaskSuccess", "states:SendTaskFailure"]) {
      expect(allowed.resourcesOf(action).sort(), action).toEqual([...machines].sort());
    }
    expect(allowed.actions.filter((action) => action.startsWith("bedrock:"))).toEqual([]);
    const arns = flattenReferences(variables.STATE_MACHINE_ARNS);
    for (const suffix of ["react", "plan_execute", "reflexion"]) expect(arns).toContain(`"${suffix}":`);
    expect(variables).toMatchObject({ SUBGOAL_MAX_DEPTH: "3", SUBGOAL_MAX_CHILDREN: "10" });
    expect(variables.ALLOWED_MODEL_IDS).toBe(
      "global.anthropic.claude-sonnet-5-5,global.anthropic.claude-haiku-5-5",
    );
  });

  it("waits for sub-goals in every loop on a task token, asking again after each timeout", () => {
    for (const machine of resourcesOf(template, "AWS::StepFunctions::StateMachine").values()) {
      // Act
      const definition = definitionOf(machine);
      const wait = stateOf(definition, "AwaitSubgoals");

      // Assess
      expect(wait.Resource).toBe("arn:<AWS::Partition>:states:::lambda:invoke.waitForTaskToken");
      expect(wait.TimeoutSeconds).toBe(3600);
      expect(wait.Catch?.map((rule) => [rule.ErrorEquals, rule.Next])).toEqual([
        [["States.Timeout"], "AwaitSubgoals"],
        [["Lambda.TooManyRequestsException"], "LambdaThrottled"],
        [["States.ALL"], "RecordFailure"],
      ]);
      expect(JSON.stringify(wait.Parameters)).toContain('"taskToken.$":"$$.Task.Token"');
      expect(stateOf(definition, "NextAction").Choices).toContainEqual(
        expect.objectContaining({ StringEquals: "subgoal", Next: "AwaitSubgoals" }),
      );
    }
  });

  it("sends an event the resume handler failed on, after two retries, to the bus's dead-letter queue", () => {
    // Act
    const [handlerId, handler] = onlyResource(template, "AWS::Lambda::Function", "ResumeHandlerFunction");
    const [queueId] = onlyResource(template, "AWS::SQS::Queue", "GoalEventBusDeadLetterQueue");
    const [, invokeConfig] = onlyResource(template, "AWS::Lambda::EventInvokeConfig");

    // Assess
    expect(invokeConfig.Properties).toMatchObject({
      FunctionName: { Ref: handlerId },
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: { "Fn::GetAtt": [queueId, "Arn"] } } },
    });
    const statements = Object.values(template.findResources("AWS::IAM::Policy"))
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(roleOf(handler)))
      .flatMap(
        (policy) => policy.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown }[],
      );
    expect(statements).toContainEqual(
      expect.objectContaining({
        Action: expect.arrayContaining(["sqs:SendMessage"]),
        Resource: { "Fn::GetAtt": [queueId, "Arn"] },
      }),
    );
  });

  it("writes no empty KmsKeyIdentifier on the archive, and logs the state machines under /aws/vendedlogs/states/", () => {
    // Act
    const [, archive] = onlyResource(template, "AWS::Events::Archive");
    const names = Object.values(template.findResources("AWS::Logs::LogGroup"))
      .map((group) => JSON.stringify(group.Properties?.LogGroupName))
      .filter((name) => name?.includes("vendedlogs"));

    // Assess: each name ends with the stack instance's id, so a retained group never blocks a redeploy
    expect(archive.Properties).not.toHaveProperty("KmsKeyIdentifier");
    expect(names.map((name) => JSON.parse(name)["Fn::Join"][1][0]).sort()).toEqual([
      "/aws/vendedlogs/states/GoalLoopsStack-plan-execute-",
      "/aws/vendedlogs/states/GoalLoopsStack-react-",
      "/aws/vendedlogs/states/GoalLoopsStack-reflexion-",
    ]);
    for (const name of names) expect(name).toContain('{"Ref":"AWS::StackId"}');
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
    const acknowledged = nag?.suppressedViolations ?? [];
    expect(acknowledged.filter((v) => (v.reason ?? "").length <= 40)).toEqual([]);
    expect(
      acknowledged
        .flatMap((v) => v.violatingConstructs.map((c) => `${v.ruleName} @ ${c.constructPath}`))
        .sort(),
    ).toEqual(expectedAcknowledgments(template).sort());
  });
});

/** Each loop construct and its own, model-calling steps. */
const LOOPS: Record<string, readonly string[]> = {
  ReactLoop: ["VerifyAndReason"],
  PlanExecuteLoop: ["Plan", "Observe", "Execute"],
  ReflexionLoop: ["Evaluate", "Reflect", "Attempt"],
};

/** Every function granted the goal store (table and payload bucket), by construct path. */
const GOAL_STORE_FUNCTIONS: readonly string[] = [
  ...SHARED_STEPS.map((step) => `LoopSteps/${step}`),
  ...Object.entries(LOOPS).flatMap(([loop, steps]) => steps.map((step) => `${loop}/${step}`)),
  "GoalsApi/Handler",
  "EmailDoor/Handler",
  "SlackDoor/Handler",
  "ResumeHandler/Function",
];

/** The internet-facing doors: granted single items by key prefix (GoalTable.grantItems), not the whole store. */
const DOORS: readonly string[] = ["EmailDoor/Handler", "SlackDoor/Handler"];

/**
 * The Lambda function of a GoalLoopFunction, by its construct path (`LoopSteps/Act`): its logical
 * ID is the path and `Function`, a repeated component once (`ResumeHandler/Function/Function`).
 */
function goalStoreFunction(template: Template, path: string): TemplateResource {
  const parts = [...path.split("/"), "Function"].filter((part, index, all) => part !== all[index - 1]);
  return onlyResource(template, "AWS::Lambda::Function", parts.join(""))[1];
}

/**
 * Every finding the stack acknowledges, each on the one resource it concerns: the list a reviewer
 * reads to see what was waived, and the test that fails when a waiver starts covering more.
 */
function expectedAcknowledgments(template: Template): string[] {
  // GoalLoops sits under the stack as `Default`: in construct paths, not in logical ids.
  const at = (path: string): string => `GoalLoopsStack/Default/${path}`;
  const policyOf = (construct: string): string => at(`${construct}/Role/DefaultPolicy/Resource`);
  const [tableId] = onlyResource(template, "AWS::DynamoDB::Table");
  const [bucketId] = onlyResource(template, "AWS::S3::Bucket");
  const modelSteps = Object.entries(LOOPS).flatMap(([loop, steps]) => steps.map((step) => `${loop}/${step}`));
  const functions = GOAL_STORE_FUNCTIONS.filter((fn) => !DOORS.includes(fn));
  const stateMachineIds = Object.keys(LOOPS).map(
    (loop) => onlyResource(template, "AWS::StepFunctions::StateMachine", `${loop}StateMachine`)[0],
  );
  const executions = stateMachineIds.map(
    (id) =>
      `arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"${id}"}]}]}:*`,
  );
  const functionId = (path: string) =>
    onlyResource(template, "AWS::Lambda::Function", `${path.replace("/", "")}Function`)[0];
  const models = ["anthropic.claude-sonnet-5-5", "anthropic.claude-haiku-5-5"];
  return [
    `AwsSolutions-SQS3 @ ${at("GoalEventBus/DeadLetterQueue/Resource")}`,
    // Operations' pending-approvals probe: runtime pin, X-Ray, and the status index it queries.
    `AwsSolutions-L1 @ ${at("Operations/PendingApprovalsProbe/Function/Resource")}`,
    `AwsSolutions-IAM5[Resource::*] @ ${policyOf("Operations/PendingApprovalsProbe")}`,
    `AwsSolutions-IAM5[Resource::<${tableId}.Arn>/index/*] @ ${policyOf("Operations/PendingApprovalsProbe")}`,
    `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*] @ ${policyOf("Operations/PendingApprovalsProbe")}`,
    // No server access logs on the payload bucket (reason in PayloadBucket).
    `AwsSolutions-S1 @ ${at("GoalTable/Payloads/Bucket/Resource")}`,
    ...functions.flatMap((fn) => [
      `AwsSolutions-L1 @ ${at(`${fn}/Function/Resource`)}`,
      `AwsSolutions-IAM5[Resource::*] @ ${policyOf(fn)}`,
      `AwsSolutions-IAM5[Resource::<${tableId}.Arn>/index/*] @ ${policyOf(fn)}`,
      // Content-addressed payload objects: get and put on this one bucket's objects.
      `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*] @ ${policyOf(fn)}`,
      `AwsSolutions-IAM5[Action::kms:GenerateDataKey*] @ ${policyOf(fn)}`,
    ]),
    // The doors: payload objects of goals and approvals only; no index, no wildcard action.
    ...DOORS.flatMap((fn) => [
      `AwsSolutions-L1 @ ${at(`${fn}/Function/Resource`)}`,
      `AwsSolutions-IAM5[Resource::*] @ ${policyOf(fn)}`,
      `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/GOAL/*] @ ${policyOf(fn)}`,
      `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/APPROVAL/*] @ ${policyOf(fn)}`,
    ]),
    // Every model-calling step, and the API (its `select` call), may call the allow-listed models:
    // a profile's foundation model in any region, through that profile only.
    ...[...modelSteps, "GoalsApi/Handler"].flatMap((fn) =>
      models.map(
        (model) =>
          `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/${model}] @ ${policyOf(fn)}`,
      ),
    ),
    ...executions.map((arn) => `AwsSolutions-IAM5[Resource::${arn}] @ ${policyOf("ResumeHandler/Function")}`),
    // The API reads its runs: DescribeExecution and GetExecutionHistory on each machine's executions.
    ...executions.map((arn) => `AwsSolutions-IAM5[Resource::${arn}] @ ${policyOf("GoalsApi/Handler")}`),
    // The API puts a new goal on the version each machine's live alias names: the versions and alias.
    ...stateMachineIds.map(
      (id) => `AwsSolutions-IAM5[Resource::<${id}>:*] @ ${policyOf("GoalsApi/Handler")}`,
    ),
    // AwaitSubgoals puts a child on its parent's deploy: each machine's versions, found by name.
    ...["react", "plan-execute", "reflexion"].map(
      (suffix, index) =>
        `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:stateMachine:${GOAL_LOOPS_STACK_ID}-${suffix}:*] @ ${at(`${Object.keys(LOOPS)[index]}/AwaitSubgoalsRunControl/Resource`)}`,
    ),
    // The event stream: its runtime pin and X-Ray, and the goal store read-only.
    `AwsSolutions-L1 @ ${at("GoalsApi/EventStream/Handler/Function/Resource")}`,
    `AwsSolutions-IAM5[Resource::*] @ ${policyOf("GoalsApi/EventStream/Handler")}`,
    `AwsSolutions-IAM5[Resource::<${tableId}.Arn>/index/*] @ ${policyOf("GoalsApi/EventStream/Handler")}`,
    `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*] @ ${policyOf("GoalsApi/EventStream/Handler")}`,
    // The OpenAPI document's function: its runtime pin and X-Ray, nothing else.
    `AwsSolutions-L1 @ ${at("GoalsApi/OpenApiDocument/Handler/Function/Resource")}`,
    `AwsSolutions-IAM5[Resource::*] @ ${policyOf("GoalsApi/OpenApiDocument/Handler")}`,
    // The API, the resume handler, RequestApproval and AwaitSubgoals (a sub-goal's) set deadline
    // schedules, in the stack's own group only.
    ...[
      "GoalsApi/Handler",
      "ResumeHandler/Function",
      "LoopSteps/RequestApproval",
      "LoopSteps/AwaitSubgoals",
    ].map(
      (fn) =>
        `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${deadlineGroupName(template)}/*] @ ${policyOf(fn)}`,
    ),
    ...Object.entries(LOOPS).flatMap(([loop, steps]) => [
      `AwsSolutions-SF1 @ ${at(`${loop}/StateMachine/Resource`)}`,
      `AwsSolutions-IAM5[Resource::*] @ ${policyOf(`${loop}/StateMachine`)}`,
      // The state machine invokes the shared steps and its own.
      ...[...SHARED_STEPS.map((step) => `LoopSteps/${step}`), ...steps.map((step) => `${loop}/${step}`)].map(
        (fn) =>
          `AwsSolutions-IAM5[Resource::<${functionId(fn)}.Arn>:*] @ ${policyOf(`${loop}/StateMachine`)}`,
      ),
    ]),
    `AwsSolutions-APIG3 @ ${at("GoalsApi/RestApi/DeploymentStage.v1/Resource")}`,
    ...[
      "goals/POST",
      "goals/GET",
      "goals/{goalId}/GET",
      "goals/{goalId}/events/GET",
      "goals/{goalId}/children/GET",
      "goals/{goalId}/stream/GET",
      "goals/{goalId}/details/GET",
      "goals/{goalId}/runs/GET",
      "goals/{goalId}/runs/{runId}/history/GET",
      ...["revisions", "directive", "pause", "resume", "retry", "limits", "cancel"].map(
        (control) => `goals/{goalId}/${control}/POST`,
      ),
      "goals/{goalId}/steps/GET",
      "goals/{goalId}/fork/POST",
      "goals/{goalId}/replay/POST",
      "approvals/GET",
      "approvals/{approvalId}/POST",
      "tenants/me/GET",
      "tenants/{tenantId}/limits/POST",
      "openapi.json/GET",
      // The ANY method of each served path, for the handler's 405 with Allow.
      ...[
        "goals",
        "goals/{goalId}",
        "goals/{goalId}/events",
        "goals/{goalId}/stream",
        "goals/{goalId}/details",
        "goals/{goalId}/children",
        "goals/{goalId}/runs",
        "goals/{goalId}/runs/{runId}/history",
        ...["revisions", "directive", "pause", "resume", "retry", "limits", "cancel"].map(
          (control) => `goals/{goalId}/${control}`,
        ),
        ...["steps", "fork", "replay"].map((history) => `goals/{goalId}/${history}`),
        "approvals",
        "approvals/{approvalId}",
        "tenants/me",
        "tenants/{tenantId}/limits",
        "openapi.json",
      ].map((path) => `${path}/ANY`),
    ].map((method) => `AwsSolutions-COG4 @ ${at(`GoalsApi/RestApi/Default/${method}/Resource`)}`),
    `AwsSolutions-SMG4 @ ${at("EmailDoor/LinkSecret/Resource")}`,
    ...["GET", "POST", "ANY"].flatMap((verb) =>
      ["APIG4", "COG4"].map(
        (rule) =>
          `AwsSolutions-${rule} @ ${at(`GoalsApi/RestApi/Default/email/approvals/{approvalId}/${verb}/Resource`)}`,
      ),
    ),
    ...["SigningSecret", "BotToken"].map(
      (secret) => `AwsSolutions-SMG4 @ ${at(`SlackDoor/${secret}/Resource`)}`,
    ),
    ...["interactions", "commands"].flatMap((route) =>
      ["POST", "ANY"].flatMap((verb) =>
        ["APIG4", "COG4"].map(
          (rule) =>
            `AwsSolutions-${rule} @ ${at(`GoalsApi/RestApi/Default/slack/${route}/${verb}/Resource`)}`,
        ),
      ),
    ),
  ];
}

describe("cdk-nag in buildApp", () => {
  it("fails synthesis on a resource that breaks an AwsSolutions rule", () => {
    // Prepare: an SQS queue with no dead-letter queue and no TLS-only policy; in-memory app mode
    // puts the validation report into the error (as it is under vitest, where NODE_ENV is "test");
    // no stack is bundled, since the synth above checked the bundles
    const { app, stack } = buildApp({
      context: { ...CDK_JSON_CONTEXT, [CDK_APP_MODE_CONTEXT]: "inmemory", "aws:cdk:bundling-stacks": [] },
    });
    new Queue(stack, "NonCompliantQueue");

    // Act + Assess
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS4/);
  });
});

describe("several configurations in one app (-c config=a.json:b.json)", () => {
  it("refuses two with the same stackName before building either, naming both files", () => {
    // Prepare: two files that both leave stackName at its default
    const folder = mkdtempSync(join(tmpdir(), "goal-loops-two-configs-"));
    const first = join(folder, "first.json");
    const second = join(folder, "second.json");
    writeFileSync(first, "{}");
    writeFileSync(second, JSON.stringify({ models: { dataResidency: true } }));

    try {
      // Act + Assess
      expect(() =>
        buildApp({ context: { ...CDK_JSON_CONTEXT, config: `${first}${delimiter}${second}` } }),
      ).toThrow(`${second}: stackName 'GoalLoopsStack' is ${first}'s too`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("refuses an empty entry (a trailing or doubled delimiter), naming the value", () => {
    // Prepare
    const folder = mkdtempSync(join(tmpdir(), "goal-loops-empty-config-"));
    const first = join(folder, "first.json");
    writeFileSync(first, "{}");

    try {
      // Act + Assess
      for (const config of [`${first}${delimiter}`, `${first}${delimiter}${delimiter}${first}`]) {
        expect(() => buildApp({ context: { ...CDK_JSON_CONTEXT, config } })).toThrow(
          `-c config=${config} has an empty entry: name one file between each '${delimiter}'`,
        );
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

/** The name of the stack's one deadline schedule group (CloudFormation takes the name CDK chose). */
function deadlineGroupName(template: Template): string {
  const [, group] = onlyResource(template, "AWS::Scheduler::ScheduleGroup");
  return z.object({ Name: z.string() }).parse(group.Properties).Name;
}
