import { Annotations, Aspects, Duration, RemovalPolicy, Stack, Token } from "aws-cdk-lib";
import type { ISecret } from "aws-cdk-lib/aws-secretsmanager";
import { EmailIdentity, type IEmailIdentity } from "aws-cdk-lib/aws-ses";
import { Construct } from "constructs";
import { TENANTS_ENV } from "../lambdas/core/tenants/tenants-settings";
import {
  type GoalLoopsConfig,
  type GoalLoopsConfigInput,
  GoalLoopsConfigSchema,
} from "./config/goal-loops-config";
import { lambdaUnreachableReason } from "./config/lambda-reachable-url";
import { ConfigError, parseSettings } from "./config/parse-settings";
import { type ResolvedModels, resolveModels } from "./config/resolve-models";
import {
  GOAL_LOOPS_METADATA_TYPE,
  type GoalLoopsMetadata,
  isLocalSynth,
  LOCAL_SYNTH_CONTEXT,
} from "./config/synth-target";
import { DeployVersion } from "./constructs/deploy-version";
import { EmailDoor } from "./constructs/email-door";
import { GoalDeadlines } from "./constructs/goal-deadlines";
import { GoalEventBus } from "./constructs/goal-event-bus";
import { GoalLoopFunction } from "./constructs/goal-loop-function";
import { GoalTable } from "./constructs/goal-table";
import { GoalsApi } from "./constructs/goals-api";
import { LambdaTools } from "./constructs/lambda-tools";
import { LogGroupSettings } from "./constructs/log-group-settings";
import { LoopSteps } from "./constructs/loop-steps";
import { McpServers } from "./constructs/mcp-servers";
import { NotifyDestinations } from "./constructs/notify-destinations";
import { Operations } from "./constructs/operations";
import type { PatternLoop } from "./constructs/pattern-loop";
import { PlanExecuteLoop } from "./constructs/plan-execute-loop";
import { ReactLoop } from "./constructs/react-loop";
import { ReflexionLoop } from "./constructs/reflexion-loop";
import { ResumeHandler } from "./constructs/resume-handler";
import { type OwnedStackSecret, SecretAges } from "./constructs/secret-ages";
import { SlackDoor } from "./constructs/slack-door";
import { packageVersion } from "./package-files";

/**
 * The props of `GoalLoops`: the configuration of `goal-loops.config.json` (the same object, checked
 * by the same schema), plus what only a CDK app can give.
 */
export interface GoalLoopsProps extends GoalLoopsConfigInput {
  /**
   * What happens to the goal table, its key, its payload bucket and the tools' tables when they
   * leave the stack. Wins over `data.removalPolicy`.
   *
   * @default - `data.removalPolicy` (`retain`: RemovalPolicy.RETAIN)
   */
  readonly removalPolicy?: RemovalPolicy;

  /**
   * The SES identity approval e-mails are sent from, when the app has one at hand (a domain
   * identity, say). Wins over `approvals.email.sender`.
   *
   * @default - the verified identity `approvals.email.sender` names, else none: the e-mail door
   * still decides signed links, but no e-mail is sent
   */
  readonly approvalEmailSender?: IEmailIdentity;

  /**
   * Where the `entry` files of `tools.lambda` are resolved from: the project's root.
   *
   * @default - the working directory (where the CDK CLI runs the app)
   */
  readonly projectDir?: string;
}

/**
 * goal-loops as one construct, for a CDK app of your own: the goal store (table and payload bucket),
 * the human-input bus, the three pattern loops on their shared steps, the goals API, the resume
 * handler, the Slack and e-mail doors and the deadline scheduler, wired through grants. Its props
 * are the configuration file's object; a bad field throws at synth, naming its path.
 *
 * Construct IDs are a public contract: renaming one replaces the resource. `GoalLoopsStack` adds
 * it with the id `Default`, which CDK leaves out of logical ids, so a stack deployed before this
 * construct existed keeps every resource.
 */
export class GoalLoops extends Construct {
  /** The configuration in effect, defaults applied. */
  readonly config: GoalLoopsConfig;
  readonly goalTable: GoalTable;
  readonly goalEventBus: GoalEventBus;
  /** The steps every pattern shares (LoadGoal, Act, AwaitApproval …). */
  readonly loopSteps: LoopSteps;
  readonly reactLoop: ReactLoop;
  readonly planExecuteLoop: PlanExecuteLoop;
  readonly reflexionLoop: ReflexionLoop;
  /** The three loops, ReAct first. */
  readonly loops: readonly PatternLoop[];
  readonly goalsApi: GoalsApi;
  readonly emailDoor: EmailDoor;
  readonly resumeHandler: ResumeHandler;
  readonly slackDoor: SlackDoor;
  /** One EventBridge Scheduler schedule per goal deadline, so limits hold while nothing runs. */
  readonly goalDeadlines: GoalDeadlines;
  /** The user's Lambda tools (`tools.lambda`), when there are any. */
  readonly lambdaTools?: LambdaTools;
  /** The user's MCP servers (`tools.mcp`) behind their McpGateway function, when there are any. */
  readonly mcpServers?: McpServers;
  /** The models the steps call, checked against the stack's region, defaults picked. */
  readonly models: ResolvedModels;
  /** The monthly age of each secret with an owner (`secrets`) and its alarm, when any has one. */
  readonly secretAges?: SecretAges;
  /** Alarms, their SNS topic, the dashboard and the pending-approvals probe (`operations`). */
  readonly operations: Operations;
  /** Where `notify` sends (`notify.channels`), when any channel is configured. */
  readonly notifyDestinations?: NotifyDestinations;
  /** The label of this deploy, which every pattern's state machine version carries. */
  readonly deployVersion: DeployVersion;

  constructor(scope: Construct, id: string, props: GoalLoopsProps = {}) {
    super(scope, id);
    // How `goal-loops start` finds this construct in the app's cloud assembly, whatever its path.
    const metadata: GoalLoopsMetadata = { version: packageVersion() };
    this.node.addMetadata(GOAL_LOOPS_METADATA_TYPE, metadata);
    const { removalPolicy: _removal, approvalEmailSender: _sender, projectDir: _dir, ...configured } = props;
    const config = parseSettings(GoalLoopsConfigSchema, configured, "GoalLoops");
    this.config = config;
    // Before any child: a model or thinking setting the region or the model refuses builds nothing.
    this.models = this.resolveModels(config);
    if (!isLocalSynth(this.node.tryGetContext(LOCAL_SYNTH_CONTEXT))) refuseUnreachableUrls(config);
    const dataRemoval =
      props.removalPolicy ??
      (config.data.removalPolicy === "destroy" ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN);
    Aspects.of(this).add(
      new LogGroupSettings({
        retentionDays: config.logs.retentionDays,
        removal: config.logs.removalPolicy,
      }),
    );

    this.goalTable = new GoalTable(this, "GoalTable", {
      removalPolicy: dataRemoval,
      payloads: config.payloads,
      ...(config.data.goalRetentionDays === undefined
        ? {}
        : { goalRetentionDays: config.data.goalRetentionDays }),
    });
    this.goalEventBus = new GoalEventBus(this, "GoalEventBus");
    const { lambda: toolConfigs, mcp: mcpConfigs } = config.tools;
    this.mcpServers =
      mcpConfigs.length === 0 ? undefined : new McpServers(this, "McpServers", { servers: mcpConfigs });
    this.lambdaTools =
      toolConfigs.length === 0
        ? undefined
        : new LambdaTools(this, "Tools", {
            tools: toolConfigs,
            tableRemovalPolicy: dataRemoval,
            ...(props.projectDir === undefined ? {} : { projectDir: props.projectDir }),
          });
    this.loopSteps = new LoopSteps(this, "LoopSteps", {
      goalTable: this.goalTable,
      ...(this.lambdaTools === undefined ? {} : { lambdaTools: this.lambdaTools }),
      ...(this.mcpServers === undefined ? {} : { mcpServers: this.mcpServers }),
      approvalTimeout: Duration.seconds(config.approvals.timeoutSeconds),
      httpAllowedHosts: config.http.allowedHosts,
      goalEventBus: this.goalEventBus,
      subgoals: config.subgoals,
    });
    this.deployVersion = new DeployVersion(this, packageVersion());
    const loopProps = {
      goalTable: this.goalTable,
      steps: this.loopSteps,
      deployVersion: this.deployVersion,
      heavyModelId: this.models.heavy,
      fastModelId: this.models.fast,
      allowedModelIds: this.models.allowed,
      ...(this.models.thinking === undefined ? {} : { thinking: this.models.thinking }),
      ...(config.models.quotas === undefined ? {} : { modelQuotas: config.models.quotas }),
    };
    this.reactLoop = new ReactLoop(this, "ReactLoop", loopProps);
    this.planExecuteLoop = new PlanExecuteLoop(this, "PlanExecuteLoop", {
      ...loopProps,
      maxConcurrency: config.planExecute.maxConcurrency,
    });
    this.reflexionLoop = new ReflexionLoop(this, "ReflexionLoop", loopProps);
    this.loops = [this.reactLoop, this.planExecuteLoop, this.reflexionLoop];
    this.wireCompensators();
    const stateMachines = Object.fromEntries(this.loops.map((loop) => [loop.pattern, loop.stateMachine]));
    this.goalsApi = new GoalsApi(this, "GoalsApi", {
      goalTable: this.goalTable,
      stateMachines,
      goalEventBus: this.goalEventBus,
      models: this.reactLoop,
      throttlingRateLimit: config.api.throttling.rateLimit,
      throttlingBurstLimit: config.api.throttling.burstLimit,
      maxOpenStreams: config.api.stream.maxOpen,
      cloudWatchRole: config.api.manageAccountCloudWatchRole,
      ...(config.api.auth.mode === "jwt" && config.api.auth.jwt !== undefined
        ? { jwtAuth: config.api.auth.jwt }
        : {}),
      ...(config.tenants === undefined ? {} : { tenants: config.tenants }),
    });
    // A GoalSpec may grant these by name; the API refuses a name it does not know (tools.N).
    if (this.lambdaTools !== undefined) {
      this.goalsApi.handler.addEnvironment({ USER_TOOL_NAMES: this.lambdaTools.names.join(",") });
    }
    // The API lists a starting goal's MCP tools through the gateway, and freezes them into the goal.
    if (this.mcpServers !== undefined) {
      this.goalsApi.handler.addEnvironment(this.mcpServers.environment);
      this.mcpServers.grantInvoke(this.goalsApi.handler);
    }
    this.resumeHandler = new ResumeHandler(this, "ResumeHandler", {
      goalTable: this.goalTable,
      goalEventBus: this.goalEventBus,
      stateMachines,
      onAbandon: config.compensation.onAbandon,
    });
    this.loopSteps.announceEndedGoals(this.resumeHandler.function);
    this.wireAbandonCompensators();
    this.goalDeadlines = new GoalDeadlines(this, "GoalDeadlines", { goalEventBus: this.goalEventBus });
    // The API sets a new goal's schedule and moves it on POST /limits; the resume handler moves it
    // when a limit decision extends the deadline.
    const busArn = this.goalEventBus.eventBus.eventBusArn;
    this.goalDeadlines.grantSetDeadlines(this.goalsApi.handler, busArn);
    this.goalDeadlines.grantSetDeadlines(this.resumeHandler.function, busArn);
    // RequestApproval sets it again as every wait starts, so no wait outlives the deadline;
    // AwaitSubgoals sets each sub-goal's as it starts it.
    this.goalDeadlines.grantSetDeadlines(this.loopSteps.functions.requestApproval, busArn);
    this.goalDeadlines.grantSetDeadlines(this.loopSteps.functions.awaitSubgoals, busArn);
    this.emailDoor = new EmailDoor(this, "EmailDoor", {
      goalTable: this.goalTable,
      goalEventBus: this.goalEventBus,
      restApi: this.goalsApi.restApi,
      senderIdentity: props.approvalEmailSender ?? emailSender(this, config.approvals.email.sender),
      approvers: config.approvals.email.approvers,
    });
    const { tenantId, channelTenants, approverUserIds, defaultChannel } = config.approvals.slack;
    this.slackDoor = new SlackDoor(this, "SlackDoor", {
      goalTable: this.goalTable,
      goalEventBus: this.goalEventBus,
      restApi: this.goalsApi.restApi,
      approverUserIds,
      ...(tenantId === undefined ? {} : { tenantId }),
      ...(channelTenants === undefined ? {} : { channelTenants }),
      ...(defaultChannel === undefined ? {} : { defaultChannel }),
    });
    this.wireApprovalNotifiers();
    this.notifyDestinations = this.wireNotifyDestinations(config);
    this.secretAges = this.createSecretAges(config);
    this.operations = this.createOperations(config.operations);
    this.shareTenants(config.tenants);
  }

  /**
   * TENANTS for every function of the app: the API scopes callers by it, the resume handler admits
   * waiting goals by its limits, and each model-calling step's governor holds a tenant to its
   * spend and model share. Last, so no function made above is missed.
   */
  private shareTenants(tenants: GoalLoopsConfig["tenants"]): void {
    if (tenants === undefined) return;
    const value = JSON.stringify(tenants);
    for (const construct of this.node.findAll()) {
      if (construct instanceof GoalLoopFunction) construct.addEnvironment({ [TENANTS_ENV]: value });
    }
  }

  /**
   * Last, so it watches every function made above (the loops', the doors', the API's, the tools').
   */
  private createOperations(settings: GoalLoopsConfig["operations"]): Operations {
    const functions = this.node
      .findAll()
      .filter((construct): construct is GoalLoopFunction => construct instanceof GoalLoopFunction);
    const { alarmEmail, pendingApprovalAlarmSeconds, ...thresholds } = settings;
    const otherAlarms = [
      ...(this.goalEventBus.deadLetterAlarm === undefined ? [] : [this.goalEventBus.deadLetterAlarm]),
      ...Object.values(this.secretAges?.alarms ?? {}),
      ...(this.secretAges === undefined ? [] : [this.secretAges.probeFailedAlarm]),
    ];
    return new Operations(this, "Operations", {
      goalTable: this.goalTable,
      stateMachines: Object.fromEntries(this.loops.map((loop) => [loop.pattern, loop.stateMachine])),
      functions,
      restApi: this.goalsApi.restApi,
      ...(otherAlarms.length === 0 ? {} : { otherAlarms }),
      ...(alarmEmail === undefined ? {} : { alarmEmail }),
      pendingApprovalAlarmAfter: Duration.seconds(pendingApprovalAlarmSeconds),
      ...thresholds,
    });
  }

  /**
   * `secrets`: every secret the stack reads whose owner the configuration names, aged monthly with
   * an alarm each. An `mcp:<server>` key without a server that has `auth.secretName` is a synth
   * warning (preflight names it too), not an error: the owner entry may outlive the server.
   */
  private createSecretAges(config: GoalLoopsConfig): SecretAges | undefined {
    const own: Readonly<Record<string, ISecret>> = {
      slackSigningSecret: this.slackDoor.signingSecret,
      slackBotToken: this.slackDoor.botToken,
      emailLinkKey: this.emailDoor.linkSecret,
    };
    const secrets: OwnedStackSecret[] = [];
    for (const [key, { owner, rotateAfterDays }] of Object.entries(config.secrets)) {
      const secret = key.startsWith("mcp:") ? this.mcpServers?.authSecrets.get(key.slice(4)) : own[key];
      if (secret === undefined) {
        Annotations.of(this).addWarningV2(
          "goal-loops:unowned-secret-key",
          `secrets.${key}: no MCP server with auth.secretName is called ${key.slice(4)}; its age is not watched`,
        );
        continue;
      }
      secrets.push({ key, secret, owner, rotateAfterDays });
    }
    if (secrets.length === 0) return undefined;
    return new SecretAges(this, "SecretAges", {
      secrets,
      metricsNamespace: config.operations.metricsNamespace,
    });
  }

  /**
   * `models` for this stack's region (an agnostic stack's region is a token: undefined here). Which
   * default was picked and why is an info line of the synth output; a Legacy model a warning.
   */
  private resolveModels(config: GoalLoopsConfig): ResolvedModels {
    const { region } = Stack.of(this);
    const models = resolveModels(
      config.models,
      { region: Token.isUnresolved(region) ? undefined : region },
      "GoalLoops",
    );
    for (const note of models.notes) Annotations.of(this).addInfo(note);
    for (const warning of models.warnings)
      Annotations.of(this).addWarningV2("goal-loops:legacy-model", warning);
    return models;
  }

  /**
   * The steps that apply queued revisions (VerifyAndReason, Observe, Evaluate) run a corrective
   * revision's compensation: they may invoke exactly the user tools' compensate functions.
   */
  private wireCompensators(): void {
    const tools = this.lambdaTools;
    if (tools === undefined || tools.compensators.size === 0) return;
    for (const fn of [
      this.reactLoop.functions.verifyAndReason,
      this.planExecuteLoop.functions.observe,
      this.reflexionLoop.functions.evaluate,
    ]) {
      fn.addEnvironment(tools.compensatorEnvironment);
      tools.grantCompensate(fn);
    }
  }

  /**
   * The resume handler runs an abandoned plan_execute goal's saga (`compensation.onAbandon`, or the
   * GoalSpec's): it may invoke exactly the user tools' compensate functions.
   */
  private wireAbandonCompensators(): void {
    const tools = this.lambdaTools;
    if (tools === undefined || tools.compensators.size === 0) return;
    this.resumeHandler.function.addEnvironment(tools.compensatorEnvironment);
    tools.grantCompensate(this.resumeHandler.function);
  }

  /**
   * Every function that runs tool calls (Act, VerifyAndReason, Execute, Attempt) gets the `notify`
   * channels and may reach them. Without channels nothing is added, and deployed `notify` refuses
   * every call, naming the (no) configured channels.
   */
  private wireNotifyDestinations(config: GoalLoopsConfig): NotifyDestinations | undefined {
    const { channels, emailSender } = config.notify;
    if (Object.keys(channels).length === 0) return undefined;
    const sender = emailSender ?? config.approvals.email.sender;
    const destinations = new NotifyDestinations(this, "NotifyDestinations", {
      channels,
      slackBotToken: this.slackDoor.botToken,
      ...(sender === undefined ? {} : { emailSender: sender }),
    });
    for (const fn of this.loopSteps.actingFunctions) destinations.grantDeliver(fn);
    return destinations;
  }

  /**
   * RequestApproval posts approval requests to Slack and emails them with signed links. The doors
   * come after the ReAct loop (they need the REST API, which needs the state machine), so their
   * settings are added to the function afterwards; they name only the secrets and the API's id,
   * which depend on nothing of the loop, so no cycle.
   */
  private wireApprovalNotifiers(): void {
    const requestApproval = this.loopSteps.functions.requestApproval;
    requestApproval.addEnvironment({
      ...this.slackDoor.notifierEnvironment,
      ...this.emailDoor.senderEnvironment,
    });
    this.slackDoor.grantPostApprovalMessages(requestApproval);
    this.emailDoor.grantSendApprovalEmails(requestApproval);
  }
}

/** The verified SES identity `sender` names, or none. */
function emailSender(scope: Construct, sender: string | undefined): IEmailIdentity | undefined {
  return sender === undefined
    ? undefined
    : EmailIdentity.fromEmailIdentityName(scope, "ApprovalEmailSender", sender);
}

/**
 * A deployable synth refuses the URLs Lambda cannot reach (an MCP server or webhook on 127.0.0.1,
 * a link-local address), naming each field: deployed, every call to one would fail. The local
 * runtime's synth (LOCAL_SYNTH_CONTEXT) accepts them, since there the functions run on this machine.
 */
function refuseUnreachableUrls(config: GoalLoopsConfig): void {
  const urls: [string, string][] = [
    ...config.tools.mcp.map((server, index): [string, string] => [`tools.mcp.${index}.url`, server.url]),
    ...Object.entries(config.notify.channels).flatMap(([name, destination]): [string, string][] =>
      destination.type === "webhook" ? [[`notify.channels.${name}.url`, destination.url]] : [],
    ),
  ];
  const problems = urls.flatMap(([field, url]) => {
    const reason = lambdaUnreachableReason(url);
    return reason === undefined
      ? []
      : [`${field} '${url}' is ${reason}, which Lambda cannot reach once deployed`];
  });
  if (problems.length === 0) return;
  throw new ConfigError(
    `GoalLoops: ${problems.join("; ")}. Give a URL reachable from Lambda (https://…); loopback URLs work only in the local stack (npm start -- --config <file>).`,
  );
}
