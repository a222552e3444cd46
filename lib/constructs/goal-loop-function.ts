import { Duration, RemovalPolicy, Token } from "aws-cdk-lib";
import { type IPrincipal, type IRole, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import {
  Alias,
  Architecture,
  type FunctionOptions,
  type IFunction,
  type IVersion,
  Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  Tracing,
} from "aws-cdk-lib/aws-lambda";
import { LogLevel, NodejsFunction, OutputFormat } from "aws-cdk-lib/aws-lambda-nodejs";
import { type ILogGroup, LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { LIVE_ALIAS } from "../../lambdas/core/goal/runs-on";
import {
  BUNDLE_EXTERNALS,
  BUNDLE_MAIN_FIELDS,
  BUNDLE_TARGET,
  ESM_REQUIRE_BANNER,
  sdkRequireAliases,
} from "./bundle-options";
import { type HandlerBundleName, handlerCode } from "./handler-bundles";
import { acknowledgeNag } from "./nag-acknowledgments";

/** Log levels Powertools Logger accepts in `POWERTOOLS_LOG_LEVEL`. */
export const GOAL_LOOP_LOG_LEVELS = ["DEBUG", "INFO", "WARN", "ERROR"] as const;
export type GoalLoopLogLevel = (typeof GOAL_LOOP_LOG_LEVELS)[number];

/** The service name every goal-loops function logs under (`POWERTOOLS_SERVICE_NAME`). */
export const GOAL_LOOPS_SERVICE_NAME = "goal-loops";

/** Lambda allows 128 MB to 10,240 MB and at most 15 minutes. */
const MIN_MEMORY_MB = 128;
const MAX_MEMORY_MB = 10_240;
const MAX_TIMEOUT = Duration.minutes(15);

export interface GoalLoopFunctionProps {
  /**
   * The goal-loops handler this function runs, by its pre-built bundle (`dist/lambdas/<name>`).
   * Give this or `entry`.
   */
  readonly bundle?: HandlerBundleName;

  /**
   * Absolute path of a handler module of the user's project (a Lambda tool's `entry`): a `.ts` file
   * that exports `handler`, bundled at synth with the same settings as the pre-built ones, which
   * needs esbuild in that project. Give this or `bundle`.
   */
  readonly entry?: string;

  /** What the function does, shown in the Lambda console. */
  readonly description: string;

  /**
   * Environment variables. `POWERTOOLS_SERVICE_NAME` and `POWERTOOLS_LOG_LEVEL` are added.
   *
   * @default - only the Powertools variables
   */
  readonly environment?: Readonly<Record<string, string>>;

  /**
   * Memory in MB, from 128 to 10,240. CPU grows with it.
   *
   * @default 512
   */
  readonly memorySize?: number;

  /**
   * How long one invocation may run, at most 15 minutes.
   *
   * @default Duration.seconds(30)
   */
  readonly timeout?: Duration;

  /**
   * Level below which Powertools Logger drops lines.
   *
   * @default "INFO"
   */
  readonly logLevel?: GoalLoopLogLevel;

  /**
   * How long the function's log group keeps lines.
   *
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
}

/**
 * One goal-loops Lambda function with the project's defaults: Node.js 22 on ARM, an ES module
 * built for Node 20 so the same bundle runs in the local runtime (goal-loops' own handlers are
 * pre-built by the package's build; a user tool's `entry` is bundled by the local esbuild, no
 * Docker), `@aws-sdk/*` left to the Lambda runtime, active X-Ray tracing, JSON logs into a log
 * group of its own with a retention.
 *
 * The function gets a role of its own that may only write to that log group: no
 * `AWSLambdaBasicExecutionRole` (which may create any log group in the account). Everything else
 * is granted to this construct, which is `IGrantable`.
 */
export class GoalLoopFunction extends Construct {
  /** The Lambda function. */
  readonly function: IFunction;
  /** The function's execution role; grants land in its default policy. */
  readonly role: IRole;
  /** The log group the function writes to. */
  readonly logGroup: ILogGroup;
  /** The principal grants go to: the execution role. */
  readonly grantPrincipal: IPrincipal;
  /** How long one invocation may run. */
  readonly timeout: Duration;
  /**
   * The version this deploy published (Lambda publishes one whenever the code or configuration
   * changed). A state machine version names it, so a run calls the same code from first step to
   * last; kept when the next deploy publishes another (removal policy RETAIN), so goals that run on
   * an older version still can. `goal-loops versions --prune` removes versions no goal runs on.
   */
  readonly version: IVersion;
  /** `live`: the alias every deploy points at the version it published. */
  readonly liveAlias: Alias;

  constructor(scope: Construct, id: string, props: GoalLoopFunctionProps) {
    super(scope, id);
    validateProps(props);

    this.logGroup = new LogGroup(this, "LogGroup", {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
    });
    const role = new Role(this, "Role", {
      assumedBy: new ServicePrincipal("lambda.amazonaws.com"),
      description: `Execution role of ${props.description}`,
    });
    this.logGroup.grantWrite(role);
    this.role = role;
    this.grantPrincipal = role;
    this.timeout = props.timeout ?? Duration.seconds(30);

    const options: FunctionOptions = {
      description: props.description,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: this.timeout,
      role,
      tracing: Tracing.ACTIVE,
      loggingFormat: LoggingFormat.JSON,
      logGroup: this.logGroup,
      environment: {
        ...props.environment,
        POWERTOOLS_SERVICE_NAME: GOAL_LOOPS_SERVICE_NAME,
        POWERTOOLS_LOG_LEVEL: props.logLevel ?? "INFO",
      },
    };
    const fn =
      props.bundle === undefined
        ? bundledAtSynth(this, props.entry ?? "", options)
        : new LambdaFunction(this, "Function", {
            ...options,
            runtime: Runtime.NODEJS_22_X,
            handler: "index.handler",
            code: handlerCode(props.bundle),
            // Old versions stay when a deploy publishes a new one: goals still run on them.
            currentVersionOptions: { removalPolicy: RemovalPolicy.RETAIN },
          });
    this.function = fn;
    this.version = fn.currentVersion;
    this.liveAlias = new Alias(this, "Live", {
      aliasName: LIVE_ALIAS,
      version: this.version,
      description: "The version the last deploy published",
    });

    acknowledgeNag(
      this.function,
      "AwsSolutions-L1",
      "Pinned to nodejs22.x on purpose: bundles target Node 20 so the local runtime runs the same artifact, " +
        "and 22.x is the newest runtime this project is tested on; a runtime upgrade is a reviewed change, not an automatic one.",
    );
    acknowledgeNag(
      role,
      "AwsSolutions-IAM5[Resource::*]",
      "Active tracing needs xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions; " +
        "every other statement of this role names its resources.",
    );
  }

  /**
   * Adds environment variables after construction: for settings of constructs made after this
   * function (the Slack and email doors need the REST API, which needs the state machine).
   */
  addEnvironment(variables: Readonly<Record<string, string>>): void {
    if (!(this.function instanceof LambdaFunction))
      throw new Error("GoalLoopFunction: not a Lambda Function");
    for (const [key, value] of Object.entries(variables)) this.function.addEnvironment(key, value);
  }
}

/** A user tool's `entry`, bundled at synth by the local esbuild with the pre-built bundles' settings. */
function bundledAtSynth(scope: Construct, entry: string, options: FunctionOptions): NodejsFunction {
  return new NodejsFunction(scope, "Function", {
    ...options,
    // Old versions stay when a deploy publishes a new one: goals still run on them.
    currentVersionOptions: { removalPolicy: RemovalPolicy.RETAIN },
    entry,
    handler: "handler",
    runtime: Runtime.NODEJS_22_X,
    bundling: {
      format: OutputFormat.ESM,
      target: BUNDLE_TARGET,
      mainFields: [...BUNDLE_MAIN_FIELDS],
      banner: ESM_REQUIRE_BANNER,
      minify: true,
      sourceMap: false,
      metafile: false,
      externalModules: [...BUNDLE_EXTERNALS],
      esbuildArgs: {
        "--alias": Object.entries(sdkRequireAliases()).map(([name, file]) => `${name}=${file}`),
      },
      // esbuild's per-bundle size report adds nothing to a synth's output; warnings still show.
      logLevel: LogLevel.WARNING,
    },
  });
}

function validateProps(props: GoalLoopFunctionProps): void {
  if ((props.bundle === undefined) === (props.entry === undefined)) {
    throw new Error(
      "GoalLoopFunction: give exactly one of bundle (a goal-loops handler) and entry (a file of yours)",
    );
  }
  const { memorySize, timeout } = props;
  if (
    memorySize !== undefined &&
    !Token.isUnresolved(memorySize) &&
    !(Number.isInteger(memorySize) && memorySize >= MIN_MEMORY_MB && memorySize <= MAX_MEMORY_MB)
  ) {
    throw new Error(
      `GoalLoopFunction: memorySize must be a whole number of MB from ${MIN_MEMORY_MB} to ${MAX_MEMORY_MB}; got ${memorySize}`,
    );
  }
  if (timeout !== undefined && !timeout.isUnresolved() && timeout.toSeconds() > MAX_TIMEOUT.toSeconds()) {
    throw new Error(`GoalLoopFunction: timeout must be at most 15 minutes; got ${timeout.toHumanString()}`);
  }
}
