import { Duration, RemovalPolicy, Stack, Token } from "aws-cdk-lib";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import {
  CfnStateMachineAlias,
  CfnStateMachineVersion,
  DefinitionBody,
  type IChainable,
  LogLevel,
  StateMachine,
  StateMachineType,
} from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";
import type { Pattern } from "../../lambdas/core/goal/goal-spec";
import { RECORD_SCHEMA } from "../../lambdas/core/goal/record-schema";
import { LIVE_ALIAS, versionDescription } from "../../lambdas/core/goal/runs-on";
import type { ThinkingSettings } from "../../lambdas/core/goal/thinking-settings";
import { DEFAULT_CONTINUE_AS_NEW_AFTER } from "../../lambdas/core/loop/loop-deps";
import { MODEL_QUOTAS_ENV, ModelQuotasSchema } from "../../lambdas/core/models/capacity/model-quota";
import {
  DEFAULT_FAST_MODEL_ID,
  DEFAULT_HEAVY_MODEL_ID,
  type ModelQuotaConfig,
} from "../config/goal-loops-config";
import { assertThinkingTaken } from "../config/resolve-models";
import { packageVersion } from "../package-files";
import { allowModels, isBedrockModelId } from "./bedrock-model-access";
import { DeployVersion } from "./deploy-version";
import { GoalLoopFunction, type GoalLoopFunctionProps, type GoalLoopLogLevel } from "./goal-loop-function";
import type { GoalTable } from "./goal-table";
import { LoopDefinition } from "./loop-definition";
import { ACT_TIMEOUT, LoopSteps, type LoopStepsProps, validateLoopStepsProps } from "./loop-steps";
import {
  acknowledgeGoalTableGrant,
  acknowledgeNag,
  acknowledgeWildcardResource,
} from "./nag-acknowledgments";
import { stackInstanceId } from "./stack-instance-id";

/** The heavy tier's model (planning, reasoning, attempts, reflections; lambdas/core/models/model-tiers.json). */
export const DEFAULT_MODEL_ID = DEFAULT_HEAVY_MODEL_ID;
/** The fast tier's model (executing a known step, judging, evaluating, summarizing, selecting). */
export const HAIKU_MODEL_ID = DEFAULT_FAST_MODEL_ID;
/**
 * One iteration writes about 9 to 25 history events; 1,000 iterations stay far below the 25,000
 * events after which Step Functions fails an execution.
 */
const MAX_CONTINUE_AS_NEW_AFTER = 1000;
/** A model step's Lambda timeout: the model client's 5-minute request timeout and room around it. */
const MODEL_STEP_TIMEOUT = Duration.minutes(6);
const STATE_MACHINE_NAME_PATTERN = /^[A-Za-z0-9_-]{1,80}$/;

/** The models a deployment uses, as the pattern constructs resolved them (GoalsApi's `models`). */
export interface ResolvedLoopModels {
  readonly heavyModelId: string;
  readonly fastModelId: string;
  readonly allowedModelIds: readonly string[];
  /** Thinking per role; roles left out keep their default. */
  readonly thinking?: ThinkingSettings;
  /** The models' Bedrock quotas the capacity governor paces calls within. */
  readonly modelQuotas?: Readonly<Record<string, ModelQuotaProps>>;
}

/** One model's Bedrock quota (`models.quotas.<model>` of goal-loops.config.json, ModelQuotaConfig). */
export type ModelQuotaProps = ModelQuotaConfig;

/** The model tiers and allow-list every pattern construct takes. */
export interface LoopModelProps {
  /**
   * The heavy tier's Bedrock model id: roles `reason`, `plan`, `attempt`, `reflect`, `reconcile`
   * unless the GoalSpec's `models` names another allowed model. Must be in `allowedModelIds`.
   *
   * @default DEFAULT_MODEL_ID (Claude Sonnet 5.5, global inference profile)
   */
  readonly heavyModelId?: string;

  /**
   * The fast tier's Bedrock model id: roles `execute`, `evaluate`, `judge`, `summarize`, `select`.
   * Must be in `allowedModelIds`.
   *
   * @default HAIKU_MODEL_ID (Claude Haiku 5.5, global inference profile)
   */
  readonly fastModelId?: string;

  /**
   * The only Bedrock models the steps may call; a GoalSpec naming another model is refused when the
   * goal is posted (and IAM refuses it anyway). Foundation model ids or inference profile ids.
   *
   * @default - `heavyModelId` and `fastModelId`
   */
  readonly allowedModelIds?: readonly string[];

  /**
   * Thinking mode and effort per model role (`models.thinking` of goal-loops.config.json), checked
   * against the model of each role's tier: a setting the model refuses fails, naming the field.
   *
   * @default - every role adaptive, at the role's default effort (lambdas/core/models/model-thinking.ts)
   */
  readonly thinking?: ThinkingSettings;

  /**
   * Bedrock quotas by model id, inference profile id or `prefix*` (`models.quotas`): the steps
   * share one capacity governor that paces each model's calls within its quota, in the order they
   * asked, and a goal whose call has no capacity waits (it never fails for it). A model without one
   * is not paced; Bedrock's throttles still make its goals wait.
   *
   * @default - no quota: calls are not paced
   */
  readonly modelQuotas?: Readonly<Record<string, ModelQuotaProps>>;
}

export interface PatternLoopProps extends LoopModelProps, Omit<LoopStepsProps, "goalTable"> {
  /** The goal store; every step reads and writes it. */
  readonly goalTable: GoalTable;

  /**
   * The shared steps (LoadGoal, Act, AwaitApproval …) to use. Give the same LoopSteps to every
   * pattern of a stack; its settings (approvalTimeout, httpAllowedHosts, toolOutputInlineBytes)
   * then come from it, and setting them here too is an error.
   *
   * @default - a LoopSteps of this construct's own, from this construct's props
   */
  readonly steps?: LoopSteps;

  /**
   * After how many iterations a run hands over to a new run of the same goal, from 1 to 1,000,
   * keeping each execution far from Step Functions' 25,000 history events.
   *
   * @default 50
   */
  readonly continueAsNewAfter?: number;

  /**
   * Name of the state machine. Fixed rather than generated so ContinueAsNew can be allowed to start
   * it without a dependency cycle (the function would otherwise need the state machine's ARN, and
   * the state machine the function's).
   *
   * @default - `${stackName}-<pattern>` (`-react`, `-plan-execute`, `-reflexion`)
   */
  readonly stateMachineName?: string;

  /**
   * How long the state machine's and the pattern functions' log groups keep lines.
   *
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;

  /**
   * Powertools log level of the step functions.
   *
   * @default "INFO"
   */
  readonly logLevel?: GoalLoopLogLevel;

  /**
   * The label of the deploy, shared by every pattern of a stack: each pattern's state machine
   * version describes itself with it, and a sub-goal runs on its parent's. Give every pattern the same one.
   *
   * @default - a label of this pattern's own (its definition alone)
   */
  readonly deployVersion?: DeployVersion;
}

/** What tells one pattern's construct from another's. */
export interface PatternIdentity {
  readonly pattern: Pattern;
  /** Used in errors and descriptions: `ReactLoop`. */
  readonly constructName: string;
  /** The default state machine name is `${stackName}-${nameSuffix}`. */
  readonly nameSuffix: string;
  readonly comment: string;
}

/** A pattern step that calls Bedrock: a GoalLoopFunction with the model settings in its environment. */
export type ModelStepProps = Omit<GoalLoopFunctionProps, "logLevel" | "logRetention">;

/**
 * What every loop pattern construct (ReactLoop, PlanExecuteLoop, ReflexionLoop) does alike: the
 * shared steps (its own or given), model tiers and their allow-list, the pattern's model-calling
 * functions with least privilege (only they may call Bedrock, and only the allowed models), and a
 * Standard state machine (JSONPath, X-Ray, ERROR logs without execution data) whose shared steps may
 * control only its own runs.
 */
export abstract class PatternLoop extends Construct {
  readonly pattern: Pattern;
  readonly steps: LoopSteps;
  abstract readonly stateMachine: StateMachine;
  /** The models the pattern's steps may call. */
  readonly allowedModelIds: readonly string[];
  readonly heavyModelId: string;
  readonly fastModelId: string;
  readonly thinking?: ThinkingSettings;
  readonly modelQuotas?: Readonly<Record<string, ModelQuotaProps>>;
  readonly stateMachineName: string;
  /** The deploy's label (see DeployVersion). */
  readonly deployVersion: DeployVersion;
  /**
   * The version of the state machine this deploy published (Step Functions publishes one whenever the
   * definition changed, which a new deploy label always does); kept when the next deploy publishes
   * another (RETAIN), so runs pinned to it go on.
   */
  stateMachineVersion!: CfnStateMachineVersion;
  /** `live`: the alias new goals start through; a deploy points it at its version, a rollback back. */
  liveAlias!: CfnStateMachineAlias;
  private readonly props: PatternLoopProps;
  private readonly identity: PatternIdentity;
  private readonly modelSteps: GoalLoopFunction[] = [];

  protected constructor(scope: Construct, id: string, props: PatternLoopProps, identity: PatternIdentity) {
    super(scope, id);
    this.props = props;
    this.identity = identity;
    this.pattern = identity.pattern;
    validateProps(props, identity.constructName);
    // Everything is checked before the first child is created: a bad prop leaves no half a loop.
    if (props.steps === undefined) validateLoopStepsProps(props, identity.constructName);
    this.stateMachineName = props.stateMachineName ?? `${Stack.of(this).stackName}-${identity.nameSuffix}`;
    if (
      !Token.isUnresolved(this.stateMachineName) &&
      !STATE_MACHINE_NAME_PATTERN.test(this.stateMachineName)
    ) {
      throw new Error(
        `${identity.constructName}: stateMachineName must be 1 to 80 characters of A-Z, a-z, 0-9, '-', '_'; got '${this.stateMachineName}'`,
      );
    }
    this.steps = props.steps ?? new LoopSteps(this, "Steps", props);
    this.deployVersion = props.deployVersion ?? new DeployVersion(this, packageVersion());
    this.heavyModelId = props.heavyModelId ?? DEFAULT_MODEL_ID;
    this.fastModelId = props.fastModelId ?? HAIKU_MODEL_ID;
    this.allowedModelIds = [...new Set(props.allowedModelIds ?? [this.heavyModelId, this.fastModelId])];
    if (props.thinking !== undefined) {
      assertThinkingTaken(
        props.thinking,
        { heavy: this.heavyModelId, fast: this.fastModelId },
        identity.constructName,
      );
      this.thinking = props.thinking;
    }
    if (props.modelQuotas !== undefined) this.modelQuotas = props.modelQuotas;
  }

  /**
   * The model settings a model-calling step reads (HEAVY_MODEL_ID, FAST_MODEL_ID, MODEL_THINKING,
   * CONTINUE_AS_NEW_AFTER).
   */
  private get modelEnvironment(): Record<string, string> {
    return {
      HEAVY_MODEL_ID: this.heavyModelId,
      FAST_MODEL_ID: this.fastModelId,
      ...modelThinkingEnvironment(this.thinking),
      ...modelQuotasEnvironment(this.modelQuotas),
      CONTINUE_AS_NEW_AFTER: String(this.props.continueAsNewAfter ?? DEFAULT_CONTINUE_AS_NEW_AFTER),
    };
  }

  /**
   * A step of this pattern that calls Bedrock: table access, the model settings, and permission to
   * call the allowed models (and nothing else of Bedrock).
   */
  protected modelStep(id: string, props: ModelStepProps): GoalLoopFunction {
    const fn = new GoalLoopFunction(this, id, {
      memorySize: 1024,
      timeout: MODEL_STEP_TIMEOUT,
      ...props,
      logLevel: this.props.logLevel,
      logRetention: this.props.logRetention,
      environment: {
        ...this.props.goalTable.environment,
        ...this.modelEnvironment,
        ...props.environment,
      },
    });
    this.props.goalTable.grantReadWriteData(fn);
    acknowledgeGoalTableGrant(fn.role, this.props.goalTable);
    allowModels(this, fn, this.allowedModelIds);
    // A verify step may complete or end the goal: it announces the end to a parent or children.
    this.steps.announceEndedGoals(fn);
    this.modelSteps.push(fn);
    return fn;
  }

  /**
   * A model step that makes the pattern's acting turn and runs its tool calls itself when none needs
   * an approval (ReAct's VerifyAndReason, Execute, Attempt): Act's tool settings, and time for the
   * model call and Act's work.
   */
  protected actingModelStep(id: string, props: ModelStepProps): GoalLoopFunction {
    const fn = this.modelStep(id, {
      timeout: MODEL_STEP_TIMEOUT.plus(ACT_TIMEOUT),
      ...props,
      environment: { ...this.steps.toolEnvironment, ...props.environment },
    });
    this.steps.lambdaTools?.grantInvoke(fn);
    this.steps.mcpServers?.grantInvoke(fn);
    this.steps.addActingFunction(fn);
    return fn;
  }

  /**
   * The state machine of `build`'s definition (built on the shared skeleton), allowed to invoke the
   * shared steps and this pattern's own; the shared steps may control its runs only.
   */
  protected createStateMachine(build: (definition: LoopDefinition) => IChainable): StateMachine {
    const definition = new LoopDefinition(this, this.steps.functions, {
      approvalTimeout: this.steps.approvalTimeout,
      version: this.deployVersion.label,
    });
    // Under /aws/vendedlogs/: CloudWatch Logs then needs no resource-policy entry per log group for
    // Step Functions, whose account-wide policy is limited in size. The stack instance's id ends the
    // name: a log group kept after `cdk destroy` never blocks the next stack of the same name.
    const logGroup = new LogGroup(this, "StateMachineLogGroup", {
      logGroupName: `/aws/vendedlogs/states/${this.stateMachineName}-${stackInstanceId()}`,
      retention: this.props.logRetention ?? RetentionDays.ONE_MONTH,
    });
    const stateMachine = new StateMachine(this, "StateMachine", {
      stateMachineName: this.stateMachineName,
      stateMachineType: StateMachineType.STANDARD,
      comment: this.identity.comment,
      definitionBody: DefinitionBody.fromChainable(build(definition)),
      tracingEnabled: true,
      logs: { destination: logGroup, level: LogLevel.ERROR, includeExecutionData: false },
    });
    // The policies must exist before an execution can reach ContinueAsNew or AwaitApproval.
    for (const policy of this.steps.allowRunControl(this, this.stateMachineName, this.pattern)) {
      stateMachine.node.addDependency(policy);
    }
    this.publishVersion(stateMachine);
    // A sub-goal's `models` must be on the allow-list its pattern's steps may call.
    this.steps.functions.awaitSubgoals.addEnvironment({ ALLOWED_MODEL_IDS: this.allowedModelIds.join(",") });
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
    for (const fn of [...Object.values(this.steps.functions), ...this.modelSteps]) {
      // Every version of the step, not only this deploy's: a run pinned to an older state machine
      // version calls the step's older version, and the role is updated in place by each deploy.
      // The function itself ($LATEST) is not granted: no run calls code that was never published.
      stateMachine.addToRolePolicy(
        new PolicyStatement({
          actions: ["lambda:InvokeFunction"],
          resources: [`${fn.function.functionArn}:*`],
        }),
      );
      acknowledgeWildcardResource(
        stateMachine,
        `${fn.function.functionArn}:*`,
        "Versions of this one step function (ARN suffix :*): a run pinned to an older state machine version invokes the step's older version; nothing else.",
      );
    }
    return stateMachine;
  }

  /**
   * The state machine's version of this deploy, described with the deploy's label and the record
   * schema its code reads, and the `live` alias pointed at it.
   */
  private publishVersion(stateMachine: StateMachine): void {
    this.deployVersion.add(stateMachine);
    this.stateMachineVersion = new CfnStateMachineVersion(this, "Version", {
      stateMachineArn: stateMachine.stateMachineArn,
      stateMachineRevisionId: stateMachine.stateMachineRevisionId,
      description: versionDescription(this.deployVersion.label, RECORD_SCHEMA),
    });
    // A replaced version stays: goals pinned to it go on, until `goal-loops versions --prune`.
    this.stateMachineVersion.applyRemovalPolicy(RemovalPolicy.RETAIN);
    this.liveAlias = new CfnStateMachineAlias(this, "LiveAlias", {
      name: LIVE_ALIAS,
      description: "New goals start on the version this names: the last deploy's, or a rollback's",
      routingConfiguration: [{ stateMachineVersionArn: this.stateMachineVersion.attrArn, weight: 100 }],
    });
  }

  /** The `live` alias's ARN. */
  get liveAliasArn(): string {
    return this.liveAlias.attrArn;
  }
}

function validateProps(props: PatternLoopProps, constructName: string): void {
  const { heavyModelId, fastModelId, allowedModelIds, continueAsNewAfter, steps } = props;
  for (const modelId of [heavyModelId, fastModelId, ...(allowedModelIds ?? [])]) {
    if (modelId !== undefined && !Token.isUnresolved(modelId) && !isBedrockModelId(modelId)) {
      throw new Error(
        `${constructName}: '${modelId}' is not a Bedrock model id (provider.model, optionally with a geography prefix such as 'us.'); ` +
          "scripted fixtures are chosen by the local runtime's --model, not deployed",
      );
    }
  }
  if (allowedModelIds !== undefined) {
    if (allowedModelIds.length === 0) {
      throw new Error(`${constructName}: allowedModelIds must name at least one model`);
    }
    for (const [tier, expected] of [
      ["heavyModelId", heavyModelId ?? DEFAULT_MODEL_ID],
      ["fastModelId", fastModelId ?? HAIKU_MODEL_ID],
    ] as const) {
      if (!allowedModelIds.includes(expected)) {
        throw new Error(`${constructName}: allowedModelIds must include the ${tier} '${expected}'`);
      }
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
      `${constructName}: continueAsNewAfter must be a whole number from 1 to ${MAX_CONTINUE_AS_NEW_AFTER} ` +
        `(each iteration adds up to ~25 of an execution's 25,000 history events); got ${continueAsNewAfter}`,
    );
  }
  if (props.modelQuotas !== undefined) {
    const parsed = ModelQuotasSchema.safeParse(props.modelQuotas);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(
        `${constructName}: modelQuotas.${issue?.path.map(String).join(".") ?? ""} ${issue?.message ?? "is invalid"}`,
      );
    }
  }
  if (steps !== undefined) {
    const ignored = (["approvalTimeout", "httpAllowedHosts", "toolOutputInlineBytes"] as const).filter(
      (name) => props[name] !== undefined,
    );
    if (ignored.length > 0) {
      throw new Error(
        `${constructName}: ${ignored.join(", ")} belong to the shared steps; set them on the LoopSteps passed as 'steps'`,
      );
    }
  }
}

/**
 * MODEL_QUOTAS for the functions that make model calls (lambdas/handlers/loop/capacity-from-env.ts):
 * the quotas as JSON, or nothing when none is set (no model is paced).
 */
export function modelQuotasEnvironment(
  quotas: Readonly<Record<string, ModelQuotaProps>> | undefined,
): Record<string, string> {
  return quotas === undefined || Object.keys(quotas).length === 0
    ? {}
    : { [MODEL_QUOTAS_ENV]: JSON.stringify(quotas) };
}

/** MODEL_THINKING for the functions that make model calls (lambdas/handlers/handler-environment.ts). */
export function modelThinkingEnvironment(thinking: ThinkingSettings | undefined): Record<string, string> {
  return thinking === undefined ? {} : { MODEL_THINKING: JSON.stringify(thinking) };
}
