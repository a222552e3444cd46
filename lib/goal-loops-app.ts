import { delimiter } from "node:path";
import { App, type Environment, Validations } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import { DEFAULT_STACK_NAME } from "./config/deployment-config";
import {
  type GoalLoopsConfig,
  type GoalLoopsConfigInput,
  GoalLoopsConfigSchema,
} from "./config/goal-loops-config";
import { resolveConfig } from "./config/load-config";
import { ConfigError, parseSettings } from "./config/parse-settings";
import { isLocalSynth, LOCAL_SYNTH_CONTEXT } from "./config/synth-target";
import { GoalLoopsStack } from "./goal-loops-stack";

/**
 * The stack's construct ID (and name, and so its template's name in `cdk.out`) when the
 * configuration sets no `stackName`.
 */
export const GOAL_LOOPS_STACK_ID = DEFAULT_STACK_NAME;

export interface BuildAppOptions {
  /**
   * Account and region to deploy to. Ignored by a synth for the local runtime (the context value
   * `goal-loops:local`), which stays environment-agnostic whatever credentials the shell has.
   *
   * @default - environment-agnostic
   */
  readonly env?: Environment;

  /**
   * Context values, as `cdk.json` would give them.
   *
   * @default - none beyond what the CDK CLI passes in
   */
  readonly context?: Record<string, unknown>;

  /**
   * The configuration (the object of `goal-loops.config.json`).
   *
   * @default - the file the context value `config` names (`cdk synth -c config=path`; several,
   * joined with the path delimiter, `:` on POSIX, make one stack each), else
   * `goal-loops.config.json` in `projectDir`, else every default
   */
  readonly config?: GoalLoopsConfigInput;

  /**
   * Where `goal-loops.config.json` is looked for when `config` is not given.
   *
   * @default - the working directory (where the CDK CLI runs the app)
   */
  readonly projectDir?: string;

  /**
   * Where to write the cloud assembly.
   *
   * @default - `cdk.out` under the CLI, a temporary directory otherwise
   */
  readonly outdir?: string;
}

export interface GoalLoopsApp {
  readonly app: App;
  /** The stack of the (first) configuration. */
  readonly stack: GoalLoopsStack;
  /** One stack per configuration, in the order `-c config=` names them. */
  readonly stacks: readonly GoalLoopsStack[];
}

/**
 * Builds the CDK app: the goal-loops stack, checked by cdk-nag's AwsSolutions pack at synthesis.
 * `bin/app.ts` and the CDK tests share it, so the tests check exactly what `cdk synth` produces.
 *
 * cdk-nag 3 is a policy-validation plugin (`Validations.of(app).addPlugins`), not an aspect. Any
 * unacknowledged violation fails synthesis and is listed in `cdk.out/validation-report.json`;
 * an acknowledgment is `Validations.of(construct).acknowledge({ id, reason })` on the narrowest
 * construct it concerns.
 */
export function buildApp(options: BuildAppOptions = {}): GoalLoopsApp {
  const app = new App({ context: options.context, outdir: options.outdir });
  // Checked before any stack is named after its stackName.
  const configs =
    options.config === undefined
      ? configsOfContext(app.node.tryGetContext("config"), options.projectDir ?? process.cwd())
      : [parseSettings(GoalLoopsConfigSchema, options.config, "config")];
  const local = isLocalSynth(app.node.tryGetContext(LOCAL_SYNTH_CONTEXT));
  const stacks = configs.map(
    (config) =>
      new GoalLoopsStack(app, config.stackName, {
        goalLoops: {
          ...config,
          ...(options.projectDir === undefined ? {} : { projectDir: options.projectDir }),
        },
        env: local ? undefined : options.env,
        description:
          "goal-loops: goal-directed LLM agent loops on Step Functions, Lambda, DynamoDB and EventBridge",
      }),
  );
  const [stack] = stacks;
  if (stack === undefined) throw new ConfigError("-c config= names no configuration file");
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack, stacks };
}

/**
 * The configurations `-c config=` names: one file, or several joined with the path delimiter (as
 * PATH joins folders) for several stacks from one app (one synth: the tests' pinned synths), each
 * with a stackName of its own. Without it, the project's file or every default.
 */
function configsOfContext(configPath: unknown, projectDir: string): readonly GoalLoopsConfig[] {
  const paths =
    typeof configPath === "string" && configPath.includes(delimiter)
      ? configPath.split(delimiter)
      : [configPath];
  // `a.json:` or `a.json::b.json`: an empty entry is a typo, not the project's file.
  if (paths.length > 1 && paths.some((path) => typeof path === "string" && path.trim() === "")) {
    throw new ConfigError(
      `-c config=${String(configPath)} has an empty entry: name one file between each '${delimiter}'`,
    );
  }
  const configs = paths.map((path) => resolveConfig({ projectDir, configPath: path }));
  const named = new Map<string, string>();
  for (const { config, source } of configs) {
    const earlier = named.get(config.stackName);
    if (earlier !== undefined)
      throw new ConfigError(
        `${source}: stackName '${config.stackName}' is ${earlier}'s too; each configuration of one app needs a stackName of its own`,
      );
    named.set(config.stackName, source);
  }
  return configs.map(({ config }) => config);
}
