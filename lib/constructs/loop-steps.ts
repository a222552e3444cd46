import { ArnFormat, Duration, Lazy, Stack, Token } from "aws-cdk-lib";
import { Policy, PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import type { Pattern } from "../../lambdas/core/goal/goal-spec";
import { DEFAULT_SUBGOAL_MAX_CHILDREN, DEFAULT_SUBGOAL_MAX_DEPTH } from "../../lambdas/core/goal/subgoals";
import {
  DEFAULT_TOOL_OUTPUT_INLINE_BYTES,
  MIN_TOOL_OUTPUT_INLINE_BYTES,
} from "../../lambdas/tools/built-in-tool-runner";
import { DEFAULT_APPROVAL_TIMEOUT_SECONDS, HOST_NAME_PATTERN } from "../config/goal-loops-config";
import type { GoalEventBus } from "./goal-event-bus";
import { GoalLoopFunction, type GoalLoopLogLevel } from "./goal-loop-function";
import type { GoalTable } from "./goal-table";
import type { LambdaTools } from "./lambda-tools";
import type { SharedStepFunctions } from "./loop-definition";
import type { McpServers } from "./mcp-servers";
import { acknowledgeGoalTableGrant, acknowledgeWildcardResource } from "./nag-acknowledgments";

/** How long a human has to answer an approval request before it expires. */
export const DEFAULT_APPROVAL_TIMEOUT = Duration.seconds(DEFAULT_APPROVAL_TIMEOUT_SECONDS);
const MIN_APPROVAL_TIMEOUT = Duration.minutes(1);
const MAX_APPROVAL_TIMEOUT = Duration.days(30);
/** A step record inlines every tool output of an iteration and must fit one 400 KB DynamoDB item. */
const MAX_TOOL_OUTPUT_INLINE_BYTES = 65_536;
/** How long Act may take to run one turn's tool calls (each HTTP request times out after 10 s). */
export const ACT_TIMEOUT = Duration.minutes(2);

export interface LoopStepsProps {
  /** The goal store; every step reads and writes it. */
  readonly goalTable: GoalTable;

  /**
   * The user's Lambda tools: Act (and every pattern's acting step) may invoke exactly them.
   *
   * @default - none
   */
  readonly lambdaTools?: LambdaTools;

  /**
   * The user's MCP servers: Act (and every pattern's acting step) may invoke their McpGateway.
   *
   * @default - none
   */
  readonly mcpServers?: McpServers;

  /**
   * The stack's bus: every step announces on it the goals it ends that someone waits on (a sub-goal's
   * parent, a parent's children, an abandoned plan's saga), as `Goal Ended` events.
   *
   * @default - none: sub-goals never wake their parents, so only use none without sub-goals
   */
  readonly goalEventBus?: GoalEventBus;

  /**
   * How deep sub-goals may nest below the goal a user posted, and how many one goal may start.
   *
   * @default - depth 3, 10 children per goal
   */
  readonly subgoals?: { readonly maxDepth?: number; readonly maxChildren?: number };

  /**
   * Host names the `http_request` tool may reach (exact, lower-case matches).
   *
   * @default - none: http_request refuses every URL
   */
  readonly httpAllowedHosts?: readonly string[];

  /**
   * Tool output up to this many bytes goes into the step record; larger output becomes a
   * workspace artifact under `.artifacts/`. From 256 to 65,536.
   *
   * @default 4096
   */
  readonly toolOutputInlineBytes?: number;

  /**
   * How long AwaitApproval waits for a human before the approval expires (the callback task's
   * `TimeoutSeconds`, always set: without it a wait lasts a year). From 1 minute to 30 days.
   *
   * @default Duration.hours(24)
   */
  readonly approvalTimeout?: Duration;

  /**
   * Powertools log level of the step functions.
   *
   * @default "INFO"
   */
  readonly logLevel?: GoalLoopLogLevel;

  /**
   * How long the functions' log groups keep lines.
   *
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
}

/**
 * The Lambda steps every loop pattern shares (DESIGN §2's skeleton): LoadGoal, Act (runs the tool
 * calls of any pattern's acting turn), RequestApproval (AwaitApproval's task-token Lambda),
 * ApprovalExpired, ContinueAsNew and RecordFailure. One set serves every pattern's state machine in
 * a stack; a pattern construct given none makes its own. None of them calls Bedrock.
 */
export class LoopSteps extends Construct {
  readonly functions: SharedStepFunctions;
  /** AwaitApproval's `TimeoutSeconds`. */
  readonly approvalTimeout: Duration;
  /**
   * The tool runner's settings (HTTP_ALLOWED_HOSTS, TOOL_OUTPUT_INLINE_BYTES), for every function
   * that runs tool calls: Act, and the pattern steps that act themselves (VerifyAndReason, Execute,
   * Attempt: `PatternLoop.actingModelStep`).
   */
  readonly toolEnvironment: Readonly<Record<string, string>>;
  /** The user's Lambda tools, when the configuration names any: every acting function may invoke them. */
  readonly lambdaTools?: LambdaTools;
  /** The user's MCP servers, when the configuration names any: every acting function may invoke their gateway. */
  readonly mcpServers?: McpServers;
  /** The bus every step announces ended goals on, when the stack has one. */
  readonly goalEventBus?: GoalEventBus;
  private readonly acting: GoalLoopFunction[] = [];
  /** The state machines whose runs AwaitSubgoals starts (each pattern registers its own). */
  private readonly stateMachineArns: Partial<Record<Pattern, string>> = {};

  constructor(scope: Construct, id: string, props: LoopStepsProps) {
    super(scope, id);
    validateLoopStepsProps(props);
    this.approvalTimeout = props.approvalTimeout ?? DEFAULT_APPROVAL_TIMEOUT;
    this.toolEnvironment = {
      HTTP_ALLOWED_HOSTS: (props.httpAllowedHosts ?? []).join(","),
      TOOL_OUTPUT_INLINE_BYTES: String(props.toolOutputInlineBytes ?? DEFAULT_TOOL_OUTPUT_INLINE_BYTES),
      ...props.lambdaTools?.environment,
      ...props.mcpServers?.environment,
    };
    this.lambdaTools = props.lambdaTools;
    this.mcpServers = props.mcpServers;
    const tableEnvironment = props.goalTable.environment;
    const common = { logLevel: props.logLevel, logRetention: props.logRetention };
    this.functions = {
      loadGoal: new GoalLoopFunction(this, "LoadGoal", {
        ...common,
        bundle: "load-goal",
        description: "goal-loops LoadGoal: load the goal, start the run, check limits",
        environment: tableEnvironment,
      }),
      act: new GoalLoopFunction(this, "Act", {
        ...common,
        bundle: "act",
        description: "goal-loops Act: run the acting turn's tool calls and log the step",
        timeout: ACT_TIMEOUT,
        environment: { ...tableEnvironment, ...this.toolEnvironment },
      }),
      requestApproval: new GoalLoopFunction(this, "RequestApproval", {
        ...common,
        bundle: "request-approval",
        description:
          "goal-loops AwaitApproval: store the approval with its task token, park the goal, ask a human",
        environment: {
          ...tableEnvironment,
          APPROVAL_TIMEOUT_SECONDS: String(this.approvalTimeout.toSeconds()),
        },
      }),
      approvalExpired: new GoalLoopFunction(this, "ApprovalExpired", {
        ...common,
        bundle: "approval-expired",
        description:
          "goal-loops ApprovalExpired: nobody answered in time; expire the approval, go on or terminate",
        environment: tableEnvironment,
      }),
      continueAsNew: new GoalLoopFunction(this, "ContinueAsNew", {
        ...common,
        bundle: "continue-as-new",
        description: "goal-loops ContinueAsNew: hand the goal to a new run of its state machine",
        environment: tableEnvironment,
      }),
      recordFailure: new GoalLoopFunction(this, "RecordFailure", {
        ...common,
        bundle: "record-failure",
        description: "goal-loops RecordFailure: mark the goal failed with the error that stopped its run",
        environment: tableEnvironment,
      }),
      awaitSubgoals: new GoalLoopFunction(this, "AwaitSubgoals", {
        ...common,
        bundle: "await-subgoals",
        description:
          "goal-loops AwaitSubgoals: start the sub-goals a turn asked for, park the goal until they end",
        environment: {
          ...tableEnvironment,
          // Filled in as the patterns register their state machines (allowRunControl).
          STATE_MACHINE_ARNS: Lazy.string({
            produce: () => Stack.of(this).toJsonString(this.stateMachineArns),
          }),
          SUBGOAL_MAX_DEPTH: String(props.subgoals?.maxDepth ?? DEFAULT_SUBGOAL_MAX_DEPTH),
          SUBGOAL_MAX_CHILDREN: String(props.subgoals?.maxChildren ?? DEFAULT_SUBGOAL_MAX_CHILDREN),
        },
      }),
    };
    this.goalEventBus = props.goalEventBus;
    for (const fn of Object.values(this.functions)) {
      props.goalTable.grantReadWriteData(fn);
      acknowledgeGoalTableGrant(fn.role, props.goalTable);
      this.announceEndedGoals(fn);
    }
    props.lambdaTools?.grantInvoke(this.functions.act);
    props.mcpServers?.grantInvoke(this.functions.act);
    this.addActingFunction(this.functions.act);
  }

  /**
   * Every function that runs tool calls: Act, and each pattern's step that acts itself
   * (`PatternLoop.actingModelStep` adds it). What a tool needs beyond the tool environment (the
   * `notify` destinations' settings and grants) is given to each of these.
   */
  get actingFunctions(): readonly GoalLoopFunction[] {
    return [...this.acting];
  }

  /** Records a function that runs tool calls (see `actingFunctions`). */
  addActingFunction(fn: GoalLoopFunction): void {
    this.acting.push(fn);
  }

  /**
   * Lets a function that may end a goal announce it (`Goal Ended` on the stack's bus): the bus's name
   * in GOAL_EVENT_BUS_NAME and PutEvents on it. Every shared step gets it here, each pattern's own
   * steps through PatternLoop.
   */
  announceEndedGoals(fn: GoalLoopFunction): void {
    if (this.goalEventBus === undefined) return;
    fn.addEnvironment({ GOAL_EVENT_BUS_NAME: this.goalEventBus.eventBus.eventBusName });
    this.goalEventBus.grantPutEvents(fn);
  }

  /**
   * Lets the shared steps control runs of the state machine named `stateMachineName` (in `scope`):
   * ContinueAsNew starts a new execution; RequestApproval answers its own token when no human is
   * needed any more. `grantStartExecution` would make the function's role reference the state
   * machine, which references the function: a cycle. A separate policy naming the machine by its
   * fixed name breaks it; the state machine must depend on the returned policies (see PatternLoop).
   */
  allowRunControl(scope: Construct, stateMachineName: string, pattern?: Pattern): Policy[] {
    const arn = Stack.of(scope).formatArn({
      service: "states",
      resource: "stateMachine",
      resourceName: stateMachineName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    // AwaitSubgoals starts a sub-goal's first run on its pattern's machine and answers its own token.
    if (pattern !== undefined) this.stateMachineArns[pattern] = arn;
    const subgoals = new Policy(scope, "AwaitSubgoalsRunControl", {
      statements: [
        new PolicyStatement({
          actions: ["states:StartExecution", "states:SendTaskSuccess", "states:SendTaskFailure"],
          resources: [arn],
        }),
        // A child runs on its parent's deploy: the machine's versions, their descriptions, its alias.
        new PolicyStatement({
          actions: VERSION_LOOKUP_ACTIONS,
          resources: [arn, `${arn}:*`],
        }),
      ],
    });
    acknowledgeVersionLookup(subgoals, arn);
    subgoals.attachToRole(this.functions.awaitSubgoals.role);
    const startExecution = new Policy(scope, "ContinueAsNewStartExecution", {
      statements: [new PolicyStatement({ actions: ["states:StartExecution"], resources: [arn] })],
    });
    startExecution.attachToRole(this.functions.continueAsNew.role);
    const taskResponse = new Policy(scope, "RequestApprovalTaskResponse", {
      statements: [
        new PolicyStatement({
          actions: ["states:SendTaskSuccess", "states:SendTaskFailure"],
          resources: [arn],
        }),
      ],
    });
    taskResponse.attachToRole(this.functions.requestApproval.role);
    return [startExecution, taskResponse, subgoals];
  }
}

/**
 * What finding a deployed version takes (VersionDirectory): the `live` alias, a version's description,
 * the list of versions. Read-only, on one state machine, its versions and its alias.
 */
export const VERSION_LOOKUP_ACTIONS = [
  "states:DescribeStateMachineAlias",
  "states:DescribeStateMachine",
  "states:ListStateMachineVersions",
];

/** The `:*` of VERSION_LOOKUP_ACTIONS' resources, for cdk-nag. */
export function acknowledgeVersionLookup(scope: Construct, stateMachineArn: string): void {
  acknowledgeWildcardResource(
    scope,
    `${stateMachineArn}:*`,
    "The versions and the live alias of this one state machine (a version's ARN ends with its number), read only: which deployed version a goal starts on.",
  );
}

/**
 * Throws on a bad prop, naming it and the construct the user gave it to (`ReactLoop` … when a loop
 * creates its own steps). Run before any construct is created.
 */
export function validateLoopStepsProps(
  props: Omit<LoopStepsProps, "goalTable">,
  constructName = "LoopSteps",
): void {
  const { httpAllowedHosts, toolOutputInlineBytes, approvalTimeout } = props;
  if (
    approvalTimeout !== undefined &&
    !Token.isUnresolved(approvalTimeout.toSeconds()) &&
    (approvalTimeout.toSeconds() < MIN_APPROVAL_TIMEOUT.toSeconds() ||
      approvalTimeout.toSeconds() > MAX_APPROVAL_TIMEOUT.toSeconds())
  ) {
    throw new Error(
      `${constructName}: approvalTimeout must be from 1 minute to 30 days; got ${approvalTimeout.toHumanString()}`,
    );
  }
  for (const host of httpAllowedHosts ?? []) {
    if (!Token.isUnresolved(host) && !HOST_NAME_PATTERN.test(host)) {
      throw new Error(
        `${constructName}: httpAllowedHosts must hold lower-case host names without scheme or port; got '${host}'`,
      );
    }
  }
  if (
    toolOutputInlineBytes !== undefined &&
    !Token.isUnresolved(toolOutputInlineBytes) &&
    !(
      Number.isInteger(toolOutputInlineBytes) &&
      toolOutputInlineBytes >= MIN_TOOL_OUTPUT_INLINE_BYTES &&
      toolOutputInlineBytes <= MAX_TOOL_OUTPUT_INLINE_BYTES
    )
  ) {
    throw new Error(
      `${constructName}: toolOutputInlineBytes must be a whole number from ${MIN_TOOL_OUTPUT_INLINE_BYTES} to ${MAX_TOOL_OUTPUT_INLINE_BYTES} (Act's tool runner refuses less at cold start); got ${toolOutputInlineBytes}`,
    );
  }
}
