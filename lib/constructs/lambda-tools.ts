import { existsSync } from "node:fs";
import path from "node:path";
import { Duration, RemovalPolicy } from "aws-cdk-lib";
import { AttributeType, Billing, TableEncryptionV2, TableV2 } from "aws-cdk-lib/aws-dynamodb";
import { type IFunction, Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { Construct } from "constructs";
import type { z } from "zod";
import type { LambdaToolConfigSchema } from "../config/goal-loops-config";
import { ConfigError } from "../config/parse-settings";
import { GoalLoopFunction } from "./goal-loop-function";
import { acknowledgeWildcardResource } from "./nag-acknowledgments";

export type LambdaToolConfig = z.output<typeof LambdaToolConfigSchema>;

/** Lambda caps a function's environment variables at 4 KB, names and values together. */
const ENVIRONMENT_MAX_BYTES = 4096;
/** Room the acting functions' other variables take, kept free for them. */
const OTHER_VARIABLES_BYTES = 1536;

export interface LambdaToolsProps {
  /** The configuration's `tools.lambda`, defaults applied. */
  readonly tools: readonly LambdaToolConfig[];
  /**
   * Where `entry` paths are resolved from: the project's root.
   *
   * @default - the working directory (where the CDK CLI runs the app)
   */
  readonly projectDir?: string;
  /**
   * What happens to the tools' tables when they leave the stack (`data.removalPolicy`).
   *
   * @default RemovalPolicy.RETAIN - they hold the tools' data, not goal-loops'
   */
  readonly tableRemovalPolicy?: RemovalPolicy;
}

/**
 * The user's Lambda tools (DESIGN §6 "Tools"). An `entry` tool is bundled like the loop's own
 * functions and deployed as a function of its own, whose role may only write its logs: the tool
 * sees nothing of the goal store, only the event it is invoked with. A `functionArn` tool is the
 * user's function, referenced. Only the functions that run tool calls get `lambda:InvokeFunction`,
 * and only on exactly these functions.
 */
export class LambdaTools extends Construct {
  /** Each tool's function, by tool name. */
  readonly functions: ReadonlyMap<string, IFunction>;
  /**
   * `USER_TOOLS` for the acting functions: each tool's name, description, input schema, risk and
   * function ARN, as the tool runner registers them.
   */
  readonly environment: Readonly<Record<string, string>>;
  /** The tool names, for the goals API to check a GoalSpec's tools[] against. */
  readonly names: readonly string[];
  /** Each tool's compensate function, by tool name (tools that have one). */
  readonly compensators: ReadonlyMap<string, IFunction>;
  private readonly invokeArns: ReadonlyMap<IFunction, string>;
  /** The tools' own tables (`table`), by name. */
  readonly tables: ReadonlyMap<string, TableV2>;

  constructor(scope: Construct, id: string, props: LambdaToolsProps) {
    super(scope, id);
    const projectDir = props.projectDir ?? process.cwd();
    const tables = new Map<string, TableV2>();
    for (const name of new Set(
      props.tools.flatMap((tool) => (tool.table === undefined ? [] : [tool.table])),
    )) {
      tables.set(name, this.toolTable(name, props.tableRemovalPolicy ?? RemovalPolicy.RETAIN));
    }
    this.tables = tables;
    const functions = new Map<string, IFunction>();
    const compensators = new Map<string, IFunction>();
    // What the acting steps invoke: an entry tool's version of this deploy (the step's own version
    // names it, so a goal keeps its tools' code too), a functionArn tool as configured.
    const invokeArns = new Map<IFunction, string>();
    for (const tool of props.tools) {
      const table = tool.table === undefined ? undefined : tables.get(tool.table);
      const made = this.toolFunction(tool.name, tool, tool, projectDir, table);
      functions.set(tool.name, made.fn);
      invokeArns.set(made.fn, made.invokeArn);
      if (tool.compensate !== undefined) {
        const compensate = this.toolFunction(
          `${tool.name}Compensate`,
          tool,
          tool.compensate,
          projectDir,
          table,
        );
        compensators.set(tool.name, compensate.fn);
        invokeArns.set(compensate.fn, compensate.invokeArn);
      }
    }
    this.invokeArns = invokeArns;
    this.functions = functions;
    this.compensators = compensators;
    this.names = props.tools.map((tool) => tool.name);
    const manifest = props.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      risk: tool.risk,
      functionArn: this.invokeArnOf(functions.get(tool.name)),
    }));
    const value = JSON.stringify(manifest);
    // A token (an entry function's ARN) is longer resolved than its placeholder: count it as an ARN.
    const bytes = Buffer.byteLength(value) + manifest.length * 64;
    if (bytes > ENVIRONMENT_MAX_BYTES - OTHER_VARIABLES_BYTES) {
      throw new ConfigError(
        `tools.lambda: the tools' names, descriptions and input schemas take about ${bytes} bytes; the acting functions' environment holds ${ENVIRONMENT_MAX_BYTES - OTHER_VARIABLES_BYTES} for them (Lambda allows 4 KB in all): shorten descriptions or schemas`,
      );
    }
    this.environment = { USER_TOOLS: value };
  }

  /**
   * `TOOL_COMPENSATORS` for the steps that apply revisions (VerifyAndReason, Observe, Evaluate): each
   * tool that has a compensate function, by name, that function's ARN.
   */
  get compensatorEnvironment(): Readonly<Record<string, string>> {
    if (this.compensators.size === 0) return {};
    const manifest = Object.fromEntries(
      [...this.compensators].map(([name, fn]) => [name, this.invokeArnOf(fn)]),
    );
    return { TOOL_COMPENSATORS: JSON.stringify(manifest) };
  }

  /** Lets `grantee` (a step that applies corrective revisions) invoke exactly the compensate functions. */
  grantCompensate(grantee: GoalLoopFunction): void {
    for (const [name, fn] of this.compensators) {
      fn.grantInvoke(grantee);
      acknowledgeWildcardResource(
        grantee.role,
        `${fn.functionArn}:*`,
        `Versions and aliases of the compensate function of the configured tool '${name}' only.`,
      );
    }
  }

  /**
   * Lets `grantee` invoke exactly these tools' functions. CDK's grant also covers the functions'
   * versions and aliases (`<arn>:*`), which cdk-nag reports as a wildcard: it never leaves the tool.
   */
  grantInvoke(grantee: GoalLoopFunction): void {
    for (const [name, fn] of this.functions) {
      fn.grantInvoke(grantee);
      acknowledgeWildcardResource(
        grantee.role,
        `${fn.functionArn}:*`,
        `Versions and aliases of the configured tool '${name}' only: the acting function may invoke exactly the tools the configuration names.`,
      );
    }
  }

  /** The ARN the acting steps invoke `fn` by (see `invokeArns`). */
  private invokeArnOf(fn: IFunction | undefined): string | undefined {
    return fn === undefined ? undefined : (this.invokeArns.get(fn) ?? fn.functionArn);
  }

  /**
   * A tool's function, or its compensate function: `functionArn` referenced, `entry` bundled as a
   * function of its own whose role may write its logs and, with `table`, read and write that table.
   */
  private toolFunction(
    id: string,
    tool: LambdaToolConfig,
    source: { readonly entry?: string | undefined; readonly functionArn?: string | undefined },
    projectDir: string,
    table: TableV2 | undefined,
  ): { readonly fn: IFunction; readonly invokeArn: string } {
    if (source.functionArn !== undefined) {
      if (table !== undefined) {
        throw new ConfigError(
          `tools.lambda: tool '${tool.name}': table needs an entry function (a functionArn's environment is yours to set)`,
        );
      }
      // The grant is the acting roles' own policy; a function in another account must also allow
      // them in its resource policy, which only its owner can change.
      const fn = LambdaFunction.fromFunctionAttributes(this, id, {
        functionArn: source.functionArn,
        sameEnvironment: true,
      });
      return { fn, invokeArn: fn.functionArn };
    }
    const entry = path.resolve(projectDir, source.entry ?? "");
    if (!existsSync(entry)) {
      throw new ConfigError(
        `tools.lambda: tool '${tool.name}': entry ${source.entry} is no file (looked at ${entry})`,
      );
    }
    const fn = new GoalLoopFunction(this, id, {
      entry,
      description: `goal-loops tool ${id}: ${tool.description}`.slice(0, 256),
      timeout: Duration.seconds(tool.timeoutSeconds),
      memorySize: 256,
      ...(table === undefined ? {} : { environment: { TOOL_TABLE_NAME: table.tableName } }),
    });
    table?.grantReadWriteData(fn);
    return { fn: fn.function, invokeArn: fn.version.functionArn };
  }

  /**
   * A table of the tools' own: on demand, point-in-time recovery, retained when the stack goes
   * unless `tableRemovalPolicy` says otherwise (it holds the tools' data, not goal-loops'). Its name
   * is CloudFormation's, unique to the stack instance.
   */
  private toolTable(name: string, removalPolicy: RemovalPolicy): TableV2 {
    return new TableV2(this, `Table-${name}`, {
      partitionKey: { name: "pk", type: AttributeType.STRING },
      sortKey: { name: "sk", type: AttributeType.STRING },
      billing: Billing.onDemand(),
      encryption: TableEncryptionV2.awsManagedKey(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy,
    });
  }
}
