import { fileURLToPath } from "node:url";
import { ArnFormat, Duration, Stack, Token } from "aws-cdk-lib";
import { Policy, PolicyStatement } from "aws-cdk-lib/aws-iam";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";
import { bedrockModelArns, grantInvokeModels, isBedrockModelId } from "./bedrock-model-access";
import { GoalLoopFunction, type GoalLoopLogLevel } from "./goal-loop-function";
import type { GoalTable } from "./goal-table";
import {
  acknowledgeGoalTableGrant,
  acknowledgeNag,
  acknowledgeWildcardResource,
  nagReferenceName,
} from "./nag-acknowledgments";
import { type ReactStepFunctions, reactDefinition } from "./react-definition";

/** The model every role uses unless the GoalSpec names one. */
export const DEFAULT_MODEL_ID = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
/** The fast model a GoalSpec may pick for a role; allowed alongside the default. */
export const HAIKU_MODEL_ID = "us.anthropic.claude-haiku-4-5-20251001-v1:0";
export const DEFAULT_CONTINUE_AS_NEW_AFTER = 50;
/**
 * One iteration writes about 9 to 15 history events (3 transitions); 1,000 iterations stay far
 * below the 25,000 events after which Step Functions fails an execution.
 */
const MAX_CONTINUE_AS_NEW_AFTER = 1000;
export const DEFAULT_TOOL_OUTPUT_INLINE_BYTES = 4096;
/** How long a human has to answer an approval request before it expires. */
export const DEFAULT_APPROVAL_TIMEOUT = Duration.hours(24);
const MIN_APPROVAL_TIMEOUT = Duration.minutes(1);
const MAX_APPROVAL_TIMEOUT = Duration.days(30);
/** A step record inlines every tool output of an iteration and must fit one 400 KB DynamoDB item. */
const MAX_TOOL_OUTPUT_INLINE_BYTES = 65_536;
const STATE_MACHINE_NAME_PATTERN = /^[A-Za-z0-9_-]{1,80}$/;
const HOST_NAME_PATTERN =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

const handlerEntry = (path: string): string =>
  fileURLToPath(new URL(`../../lambdas/handlers/${path}`, import.meta.url));

export interface ReactLoopProps {
  /** The goal store; every step reads and writes it. */
  readonly goalTable: GoalTable;

  /**
   * Bedrock model id for every role the GoalSpec does not name (`DEFAULT_MODEL_ID`). Must be in
   * `allowedModelIds`.
   *
   * @default DEFAULT_MODEL_ID (Claude Sonnet 4.5, US inference profile)
   */
  readonly defaultModelId?: string;

  /**
   * The only Bedrock models the reasoning step may call: a GoalSpec naming another model fails
   * with AccessDenied. Foundation model ids or cross-region inference profile ids.
   *
   * @default - `defaultModelId` and HAIKU_MODEL_ID
   */
  readonly allowedModelIds?: readonly string[];

  /**
   * After how many iterations a run hands over to a new run of the same goal, from 1 to 1,000,
   * keeping each execution far from Step Functions' 25,000 history events.
   *
   * @default 50
   */
  readonly continueAsNewAfter?: number;

  /**
   * Host names the `http_request` tool may reach (exact, lower-case matches).
   *
   * @default - none: http_request refuses every URL
   */
  readonly httpAllowedHosts?: readonly string[];

  /**
   * Tool output up to this many bytes goes into the step record; larger output becomes a
   * workspace artifact under `.artifacts/`. From 1 to 65,536.
   *
   * @default 4096
   */
  readonly toolOutputInlineBytes?: number;

  /**
   * Name of the state machine. Fixed rather than generated so the continue-as-new step can be
   * allowed to start it without a dependency cycle (the function would otherwise need the state
   * machine's ARN, and the state machine the function's).
   *
   * @default - `${stackName}-react`
   */
  readonly stateMachineName?: string;

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
   * How long the functions' and the state machine's log groups keep lines.
   *
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
}

/**
 * The ReAct loop (DESIGN §2): a Standard state machine, JSONPath only, whose Lambda steps keep all
 * goal state in the goal table and pass only `{goalId, runId, iteration, next}` between states.
 *
 * The states and their retries are in `reactDefinition`; this construct owns the step functions
 * (see GoalLoopFunction), their permissions, and the state machine with its logs and tracing.
 *
 * Least privilege: every step reads and writes the table; only VerifyAndReason may call Bedrock,
 * and only the allowed models; only ContinueAsNew may start this state machine.
 */
export class ReactLoop extends Construct {
  readonly stateMachine: StateMachine;
  readonly functions: ReactStepFunctions;
  /** The models VerifyAndReason may call. */
  readonly allowedModelIds: readonly string[];
  /** AwaitApproval's `TimeoutSeconds`. */
  readonly approvalTimeout: Duration;

  constructor(scope: Construct, id: string, props: ReactLoopProps) {
    super(scope, id);
    validateProps(props);

    const defaultModelId = props.defaultModelId ?? DEFAULT_MODEL_ID;
    this.allowedModelIds = [...new Set(props.allowedModelIds ?? [defaultModelId, HAIKU_MODEL_ID])];
    this.approvalTimeout = props.approvalTimeout ?? DEFAULT_APPROVAL_TIMEOUT;
    const stateMachineName = props.stateMachineName ?? `${Stack.of(this).stackName}-react`;
    validateStateMachineName(stateMachineName);

    const tableEnvironment = { GOAL_TABLE_NAME: props.goalTable.table.tableName };
    const common = { logLevel: props.logLevel, logRetention: props.logRetention };
    this.functions = {
      loadGoal: new GoalLoopFunction(this, "LoadGoal", {
        ...common,
        entry: handlerEntry("react/load-goal.ts"),
        description: "goal-loops ReAct LoadGoal: load the goal, apply queued revisions, check limits",
        environment: tableEnvironment,
      }),
      verifyAndReason: new GoalLoopFunction(this, "VerifyAndReason", {
        ...common,
        entry: handlerEntry("react/verify-and-reason.ts"),
        description:
          "goal-loops ReAct VerifyAndReason: turn the last act into evidence, decide, call the model",
        memorySize: 1024,
        // The model client's request timeout is 5 minutes; the step needs room to record around it.
        timeout: Duration.minutes(6),
        environment: {
          ...tableEnvironment,
          DEFAULT_MODEL_ID: defaultModelId,
          CONTINUE_AS_NEW_AFTER: String(props.continueAsNewAfter ?? DEFAULT_CONTINUE_AS_NEW_AFTER),
        },
      }),
      act: new GoalLoopFunction(this, "Act", {
        ...common,
        entry: handlerEntry("react/act.ts"),
        description: "goal-loops ReAct Act: run the reasoned tool calls and log the step",
        timeout: Duration.minutes(2),
        environment: {
          ...tableEnvironment,
          HTTP_ALLOWED_HOSTS: (props.httpAllowedHosts ?? []).join(","),
          TOOL_OUTPUT_INLINE_BYTES: String(props.toolOutputInlineBytes ?? DEFAULT_TOOL_OUTPUT_INLINE_BYTES),
        },
      }),
      requestApproval: new GoalLoopFunction(this, "RequestApproval", {
        ...common,
        entry: handlerEntry("react/request-approval.ts"),
        description:
          "goal-loops AwaitApproval: store the approval with its task token, park the goal, ask a human",
        environment: {
          ...tableEnvironment,
          APPROVAL_TIMEOUT_SECONDS: String(this.approvalTimeout.toSeconds()),
        },
      }),
      approvalExpired: new GoalLoopFunction(this, "ApprovalExpired", {
        ...common,
        entry: handlerEntry("react/approval-expired.ts"),
        description:
          "goal-loops ApprovalExpired: nobody answered in time; expire the approval, go on or terminate",
        environment: tableEnvironment,
      }),
      continueAsNew: new GoalLoopFunction(this, "ContinueAsNew", {
        ...common,
        entry: handlerEntry("react/continue-as-new.ts"),
        description: "goal-loops ReAct ContinueAsNew: hand the goal to a new run of this state machine",
        environment: tableEnvironment,
      }),
      recordFailure: new GoalLoopFunction(this, "RecordFailure", {
        ...common,
        entry: handlerEntry("record-failure.ts"),
        description: "goal-loops RecordFailure: mark the goal failed with the error that stopped its run",
        environment: tableEnvironment,
      }),
    };

    for (const fn of Object.values(this.functions)) {
      props.goalTable.grantReadWriteData(fn);
      acknowledgeGoalTableGrant(fn.role, props.goalTable);
    }
    this.allowModels(this.functions.verifyAndReason);

    this.stateMachine = this.createStateMachine(stateMachineName, props.logRetention);
    this.allowContinueAsNew(stateMachineName);
    this.allowTaskResponse(stateMachineName);
  }

  /**
   * RequestApproval answers its own token at once when no human is needed any more (the goal
   * stopped, the gate was decided). Like ContinueAsNew's, the permission names the state machine by
   * its fixed name in a separate policy, so the function does not depend on the state machine.
   */
  private allowTaskResponse(stateMachineName: string): void {
    const policy = new Policy(this, "RequestApprovalTaskResponse", {
      statements: [
        new PolicyStatement({
          actions: ["states:SendTaskSuccess", "states:SendTaskFailure"],
          resources: [this.stateMachineArnFor(stateMachineName)],
        }),
      ],
    });
    policy.attachToRole(this.functions.requestApproval.role);
    this.stateMachine.node.addDependency(policy);
  }

  private stateMachineArnFor(stateMachineName: string): string {
    return Stack.of(this).formatArn({
      service: "states",
      resource: "stateMachine",
      resourceName: stateMachineName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
  }

  /** Only VerifyAndReason calls Bedrock, and only the allowed models. */
  private allowModels(fn: GoalLoopFunction): void {
    grantInvokeModels(this, fn, this.allowedModelIds);
    const wildcardArns = this.allowedModelIds
      .flatMap((modelId) => bedrockModelArns(this, modelId))
      .filter((arn) => nagReferenceName(this, arn).includes("*"));
    for (const arn of wildcardArns) {
      acknowledgeWildcardResource(
        fn.role,
        arn,
        "A cross-region inference profile may serve a request from its foundation model in any region of its geography, " +
          "so the profile and that model are allowed in every region; the model id itself is exact and allow-listed.",
      );
    }
  }

  private createStateMachine(
    stateMachineName: string,
    logRetention: RetentionDays | undefined,
  ): StateMachine {
    const logGroup = new LogGroup(this, "StateMachineLogGroup", {
      retention: logRetention ?? RetentionDays.ONE_MONTH,
    });
    const stateMachine = new StateMachine(this, "StateMachine", {
      stateMachineName,
      stateMachineType: StateMachineType.STANDARD,
      comment: "goal-loops ReAct: reason, act, verify, until the goal's success checks have evidence",
      definitionBody: DefinitionBody.fromChainable(
        reactDefinition(this, this.functions, { approvalTimeout: this.approvalTimeout }),
      ),
      tracingEnabled: true,
      logs: { destination: logGroup, level: LogLevel.ERROR, includeExecutionData: false },
    });
    acknowledgeNag(
      stateMachine,
      "AwsSolutions-SF1",
      "Logging ALL events with execution data would write prompts, tool output and task tokens to CloudWatch; " +
        "the state machine logs ERROR events without execution data, and the goal's event log in DynamoDB records every step.",
    );
    acknowledgeNag(
      stateMachine,
      "AwsSolutions-IAM5[Resource::*]",
      "CloudWatch Logs delivery (logs:CreateLogDelivery and the like) and X-Ray tracing support no resource-level permissions; " +
        "the role's Lambda statement names each step function.",
    );
    for (const fn of Object.values(this.functions)) {
      acknowledgeWildcardResource(
        stateMachine,
        `${fn.function.functionArn}:*`,
        "LambdaInvoke's grant covers the versions and aliases of this one step function (ARN suffix :*), nothing else.",
      );
    }
    return stateMachine;
  }

  /**
   * ContinueAsNew starts a new execution of this state machine. `grantStartExecution` would make the
   * function's role policy reference the state machine, which references the function: a cycle.
   * A separate policy with the ARN built from the fixed name breaks it (the function does not
   * depend on this policy; it is attached before any execution can reach ContinueAsNew).
   */
  private allowContinueAsNew(stateMachineName: string): void {
    const role = this.functions.continueAsNew.role;
    const policy = new Policy(this, "ContinueAsNewStartExecution", {
      statements: [
        new PolicyStatement({
          actions: ["states:StartExecution"],
          resources: [
            Stack.of(this).formatArn({
              service: "states",
              resource: "stateMachine",
              resourceName: stateMachineName,
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          ],
        }),
      ],
    });
    policy.attachToRole(role);
    // The policy must exist before an execution can reach ContinueAsNew.
    this.stateMachine.node.addDependency(policy);
  }
}

function validateProps(props: ReactLoopProps): void {
  const { defaultModelId, allowedModelIds, continueAsNewAfter, httpAllowedHosts, toolOutputInlineBytes } =
    props;
  for (const modelId of [defaultModelId, ...(allowedModelIds ?? [])]) {
    if (modelId !== undefined && !Token.isUnresolved(modelId) && !isBedrockModelId(modelId)) {
      throw new Error(
        `ReactLoop: '${modelId}' is not a Bedrock model id (provider.model, optionally with a geography prefix such as 'us.'); ` +
          "scripted fixtures are chosen by the local runtime's --model, not deployed",
      );
    }
  }
  if (allowedModelIds !== undefined) {
    if (allowedModelIds.length === 0) {
      throw new Error("ReactLoop: allowedModelIds must name at least one model");
    }
    const expected = defaultModelId ?? DEFAULT_MODEL_ID;
    if (!allowedModelIds.includes(expected)) {
      throw new Error(`ReactLoop: allowedModelIds must include the default model '${expected}'`);
    }
  }
  if (
    continueAsNewAfter !== undefined &&
    !Token.isUnresolved(continueAsNewAfter) &&
    !(
      Number.isInteger(continueAsNewAfter) &&
      continueAsNewAfter >= 1 &&
      continueAsNewAfter <= MAX_CONTINUE_AS_NEW_AFTER
    )
  ) {
    throw new Error(
      `ReactLoop: continueAsNewAfter must be a whole number from 1 to ${MAX_CONTINUE_AS_NEW_AFTER} ` +
        `(each iteration adds up to ~15 of an execution's 25,000 history events); got ${continueAsNewAfter}`,
    );
  }
  const approvalTimeout = props.approvalTimeout;
  if (
    approvalTimeout !== undefined &&
    !Token.isUnresolved(approvalTimeout.toSeconds()) &&
    (approvalTimeout.toSeconds() < MIN_APPROVAL_TIMEOUT.toSeconds() ||
      approvalTimeout.toSeconds() > MAX_APPROVAL_TIMEOUT.toSeconds())
  ) {
    throw new Error(
      `ReactLoop: approvalTimeout must be from 1 minute to 30 days; got ${approvalTimeout.toHumanString()}`,
    );
  }
  for (const host of httpAllowedHosts ?? []) {
    if (!Token.isUnresolved(host) && !HOST_NAME_PATTERN.test(host)) {
      throw new Error(
        `ReactLoop: httpAllowedHosts must hold lower-case host names without scheme or port; got '${host}'`,
      );
    }
  }
  if (
    toolOutputInlineBytes !== undefined &&
    !Token.isUnresolved(toolOutputInlineBytes) &&
    !(
      Number.isInteger(toolOutputInlineBytes) &&
      toolOutputInlineBytes >= 1 &&
      toolOutputInlineBytes <= MAX_TOOL_OUTPUT_INLINE_BYTES
    )
  ) {
    throw new Error(
      `ReactLoop: toolOutputInlineBytes must be a whole number from 1 to ${MAX_TOOL_OUTPUT_INLINE_BYTES}; got ${toolOutputInlineBytes}`,
    );
  }
}

function validateStateMachineName(name: string): void {
  if (!Token.isUnresolved(name) && !STATE_MACHINE_NAME_PATTERN.test(name)) {
    throw new Error(
      `ReactLoop: stateMachineName must be 1 to 80 characters of A-Z, a-z, 0-9, '-', '_'; got '${name}'`,
    );
  }
}
