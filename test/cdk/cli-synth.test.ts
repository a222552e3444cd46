import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { REQUIRED_BOOTSTRAP_VERSION } from "../../lib/preflight/bootstrap-check";
import { findCfnLint, lintTemplates, reportsErrors } from "./cfn-lint-support";
import { functionPolicySizes } from "./function-policy-size";

/**
 * `cdk synth` as `cdk deploy` runs it: the real CDK CLI, with an account and a region, so the
 * stack is pinned to an environment (what credentials make the CLI do) and cdk-nag, which the CLI
 * runs as a validation plugin, reports on the template that would be deployed. `Template.fromStack`
 * in the other CDK tests skips validation plugins, and their stacks are environment-agnostic.
 *
 * The cases of one region synthesize in one run, one stack each (`-c config=a.json:b.json`, each
 * configuration with a stackName of its own, as several stacks per account and region are
 * deployed): the CLI pins each to the region as it pins one, and cdk-nag and CloudFormation's
 * validation check every stack of the assembly. Most of a run's CPU comes before its first stack
 * (loading the CDK, compiling the validator's WebAssembly and its rules): measured here, a run of
 * one stack ~18 s, of two ~18 s, of this file's three ~25 s.
 */

const PROJECT_DIR = resolve(import.meta.dirname, "../..");
const ACCOUNT = "123456789012";
/** Each synth takes up to ~600 MB (three stacks) and most of a core: two at a time. */
const CONCURRENCY = 2;

interface SynthCase {
  readonly name: string;
  readonly region: string;
  /** The configuration's stackName: its stack's ID and template's name in the assembly. */
  readonly stackName: string;
  /** The configuration file's content; none: the project's goal-loops.config.json. */
  readonly config?: (workDir: string) => unknown;
}

/** The project's goal-loops.config.json, the stack a plain `cdk deploy` makes. */
const PROJECT_CONFIG = join(PROJECT_DIR, "goal-loops.config.json");
const PROJECT_STACK = "GoalLoopsStack";

/**
 * The tools example as a deployer would give it: its MCP server at a URL Lambda can reach, with a
 * credential; and owners for that credential and the stack's own secrets (the secret-age probe and
 * its alarms).
 */
function toolsExampleDeployable(): unknown {
  const example = JSON.parse(
    readFileSync(join(PROJECT_DIR, "examples/goal-loops.tools.config.json"), "utf8"),
  );
  const { $schema: _schema, ...config } = example;
  return {
    ...config,
    stackName: "GoalLoopsTools",
    tools: {
      ...config.tools,
      mcp: config.tools.mcp.map((server: { url: string }) => ({
        ...server,
        url: "https://mcp.example.com/mcp",
        auth: { secretName: "goal-loops/mcp-token" },
      })),
    },
    secrets: {
      slackSigningSecret: { owner: "slack-admins@example.com", rotateAfterDays: 90 },
      slackBotToken: { owner: "slack-admins@example.com" },
      emailLinkKey: { owner: "ops team" },
      ...Object.fromEntries(
        config.tools.mcp.map((server: { name: string }) => [`mcp:${server.name}`, { owner: "tools team" }]),
      ),
    },
  };
}

const PASSING: readonly SynthCase[] = [
  { name: "the default configuration in us-east-1", region: "us-east-1", stackName: PROJECT_STACK },
  { name: "the default configuration in eu-west-1", region: "eu-west-1", stackName: PROJECT_STACK },
  {
    name: "dataResidency in eu-west-1",
    region: "eu-west-1",
    stackName: "GoalLoopsDataResidency",
    config: () => ({ stackName: "GoalLoopsDataResidency", models: { dataResidency: true } }),
  },
  {
    // Also IAM and the JWT authorizer (a Cognito issuer) side by side, two REST APIs over the same
    // functions (each function's resource policy holds both APIs' permissions), and tenants with
    // limits: their functions and grants. Plain jwt mode is test/cdk/goals-api.test.ts's.
    name: "dataResidency, IAM and JWT auth and tenants in us-east-1",
    region: "us-east-1",
    stackName: "GoalLoopsAuthAndTenants",
    config: () => ({
      stackName: "GoalLoopsAuthAndTenants",
      models: { dataResidency: true },
      api: {
        auth: {
          mode: "iam+jwt",
          jwt: {
            issuer: "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Example1",
            audience: "console-client-id",
            audienceClaim: "client_id",
            tenantClaim: "custom:tenant",
          },
        },
      },
      tenants: {
        admins: ["arn:aws:iam::*:role/goal-loops-operators"],
        limits: { default: { concurrentGoals: 10, startsPerMinute: 30, spendPerDayUsd: 50 } },
      },
    }),
  },
  {
    name: "the tools example, its MCP server at an https URL",
    region: "eu-west-1",
    stackName: "GoalLoopsTools",
    config: toolsExampleDeployable,
  },
];

interface SynthRun {
  readonly exitCode: number;
  readonly output: string;
  readonly outDir: string;
}

/**
 * The shell of a deployer without credentials: the CLI then keeps CDK_DEFAULT_ACCOUNT as exported
 * and takes the region from `--region`. Credentials of the machine running the tests would make it
 * look the account up (and, offline, wait for the network), so none are visible to it.
 */
function synthEnvironment(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^AWS_/.test(name) || /^CDK_/.test(name)) delete env[name];
  }
  const empty = join(home, "empty");
  writeFileSync(empty, "");
  return {
    ...env,
    CDK_DEFAULT_ACCOUNT: ACCOUNT,
    CDK_DISABLE_CLI_TELEMETRY: "true",
    AWS_CONFIG_FILE: empty,
    AWS_SHARED_CREDENTIALS_FILE: empty,
    AWS_EC2_METADATA_DISABLED: "true",
  };
}

function runCdkSynth(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ exitCode: number; output: string }> {
  return new Promise((resolveRun, reject) => {
    // The project's CDK CLI, the one `npx cdk` resolves to, without npx's own second of CPU.
    const cli = join(PROJECT_DIR, "node_modules", "aws-cdk", "bin", "cdk");
    const child = spawn(process.execPath, [cli, "synth", "--quiet", "--no-notices", ...args], {
      cwd: PROJECT_DIR,
      env,
    });
    const output: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => output.push(chunk));
    child.once("error", reject);
    child.once("close", (code) =>
      resolveRun({ exitCode: code ?? -1, output: Buffer.concat(output).toString("utf8") }),
    );
  });
}

/** Runs `tasks` with at most `limit` at once, results in order. */
async function inPool<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      const task = tasks[index];
      if (task !== undefined) results[index] = await task();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

const ManifestSchema = z.looseObject({
  artifacts: z.record(
    z.string(),
    z.looseObject({
      type: z.string(),
      environment: z.string().optional(),
      properties: z
        .looseObject({
          templateFile: z.string().optional(),
          requiresBootstrapStackVersion: z.number().optional(),
        })
        .optional(),
    }),
  ),
});

type Manifest = z.infer<typeof ManifestSchema>;

/** The stacks of a run's assembly, by stack ID (its configuration's stackName). */
function stacksOf(run: SynthRun): Map<string, Manifest["artifacts"][string]> {
  const manifest = ManifestSchema.parse(JSON.parse(readFileSync(join(run.outDir, "manifest.json"), "utf8")));
  return new Map(
    Object.entries(manifest.artifacts).filter(([, artifact]) => artifact.type === "aws:cloudformation:stack"),
  );
}

/** The template of the stack `stackName` in a run's assembly, its path. */
function templateOf(run: SynthRun, stackName: string): string {
  const templateFile = stacksOf(run).get(stackName)?.properties?.templateFile;
  if (templateFile === undefined) throw new Error(`${run.outDir} holds no template of ${stackName}`);
  return join(run.outDir, templateFile);
}

const ReportSchema = z.looseObject({
  pluginReports: z.array(z.looseObject({ pluginName: z.string(), violations: z.array(z.unknown()) })),
});

const cfnLint = findCfnLint();
if ("missing" in cfnLint) {
  // Said on the console as well as in the skipped test's name, so nobody reads a green run as linted.
  console.warn(
    `SKIPPED: cfn-lint over the pinned synths' templates did not run: ${cfnLint.missing}. Install it with 'pip install cfn-lint'.`,
  );
}

describe("cdk synth with a pinned environment, as cdk deploy runs it", () => {
  let workDir: string;
  /** Each case's run: the one synth of its region. */
  let runs: SynthRun[] = [];
  let refused: SynthRun;

  beforeAll(async () => {
    // Prepare
    workDir = mkdtempSync(join(tmpdir(), "goal-loops-cli-synth-"));
    const env = synthEnvironment(workDir);
    const synth = (name: string, region: string, configFiles: readonly string[]) => async () => {
      const outDir = join(workDir, name);
      mkdirSync(outDir, { recursive: true });
      const args = [
        "--region",
        region,
        "--output",
        outDir,
        "--context",
        `config=${configFiles.join(delimiter)}`,
      ];
      return { ...(await runCdkSynth(args, { ...env, AWS_REGION: region })), outDir };
    };
    const configFile = (synthCase: SynthCase, index: number) => {
      if (synthCase.config === undefined) return PROJECT_CONFIG;
      const file = join(workDir, `case-${index}.config.json`);
      writeFileSync(file, JSON.stringify(synthCase.config(workDir)));
      return file;
    };
    const regions = [...new Set(PASSING.map((synthCase) => synthCase.region))];

    // Act: the refusal first (it stops before any bundling), then one synth per region, of its cases
    const tasks = [
      synth("tools-example-as-is", "eu-west-1", [join(PROJECT_DIR, "examples/goal-loops.tools.config.json")]),
      ...regions.map((region) =>
        synth(
          region,
          region,
          PASSING.flatMap((synthCase, index) =>
            synthCase.region === region ? [configFile(synthCase, index)] : [],
          ),
        ),
      ),
    ];
    const [first, ...rest] = await inPool(tasks, CONCURRENCY);
    if (first === undefined) throw new Error("the refused synth did not run");
    refused = first;
    runs = PASSING.map((synthCase) => {
      const run = rest[regions.indexOf(synthCase.region)];
      if (run === undefined) throw new Error(`the synth of ${synthCase.region} did not run`);
      return run;
    });
  }, 900_000);

  afterAll(() => {
    rmSync(workDir, { recursive: true, force: true });
  });

  describe.each(PASSING.map((synthCase, index) => ({ ...synthCase, index })))(
    "$name",
    ({ region, stackName, index }) => {
      it("finishes without a cdk-nag error, pinned to the account and region", () => {
        // Prepare
        const run = runs[index];
        if (run === undefined) throw new Error(`case ${index} did not run`);

        // Assess
        expect(run.output).not.toContain("Synthesis finished with errors");
        expect(run.exitCode, run.output.slice(-4000)).toBe(0);
        const report = ReportSchema.parse(
          JSON.parse(readFileSync(join(run.outDir, "validation-report.json"), "utf8")),
        );
        expect(report.pluginReports.map((plugin) => plugin.pluginName)).toContain("AwsSolutions");
        // The report covers every stack of the region's run: none of them has a violation.
        expect(report.pluginReports.flatMap((plugin) => plugin.violations)).toEqual([]);
        const stacksOfRun = stacksOf(run);
        expect([...stacksOfRun.keys()].sort()).toEqual(
          PASSING.filter((other) => other.region === region)
            .map((other) => other.stackName)
            .sort(),
        );
        const stack = stacksOfRun.get(stackName);
        expect(stack?.environment).toBe(`aws://${ACCOUNT}/${region}`);
        // preflight checks the bootstrap version this app asks for
        expect(stack?.properties?.requiresBootstrapStackVersion).toBe(REQUIRED_BOOTSTRAP_VERSION);
      });
    },
  );

  it("keeps every function's resource policy far under Lambda's 20 KB (prints the largest)", () => {
    // Prepare: the default configuration and the tools example, as deployed
    const cases = [
      { name: "default", index: 1 },
      { name: "tools example", index: PASSING.length - 1 },
    ];

    // Act
    const largest = cases.map(({ name, index }) => {
      const run = runs[index];
      if (run === undefined) throw new Error(`case ${index} did not run`);
      const template = templateOf(run, PASSING[index]?.stackName ?? "");
      const sizes = [...functionPolicySizes(JSON.parse(readFileSync(template, "utf8"))).values()];
      return { name, bytes: Math.max(0, ...sizes) };
    });
    console.log(
      `largest function resource policy: ${largest.map(({ name, bytes }) => `${name} ${bytes} B`).join(", ")}`,
    );

    // Assess
    for (const { name, bytes } of largest) expect(bytes, name).toBeLessThanOrEqual(10 * 1024);
  });

  it("refuses the tools example's loopback MCP URL as it is, naming the field", () => {
    // Assess
    expect(refused.exitCode).toBe(1);
    expect(refused.output).toContain(
      "tools.mcp.0.url 'http://127.0.0.1:3001/mcp' is a loopback address, which Lambda cannot reach once deployed",
    );
  });

  it.skipIf("missing" in cfnLint)(
    `passes cfn-lint on every template with no error${"missing" in cfnLint ? ` — skipped: ${cfnLint.missing}` : ""}`,
    async () => {
      // Prepare
      const templates = PASSING.map((synthCase, index) => {
        const run = runs[index];
        if (run === undefined) throw new Error(`case ${index} did not run`);
        return templateOf(run, synthCase.stackName);
      });
      expect(new Set(templates).size).toBe(PASSING.length);

      // Act
      const result = await lintTemplates(templates);

      // Assess
      expect(result.crashed, `cfn-lint exited ${result.status}: ${result.stderr}`).toBe(false);
      expect(result.errors).toEqual([]);
      expect(reportsErrors(result)).toBe(false);
    },
    // cfn-lint 1.51 takes ~10 s of CPU per template (1 template 11 s, 2 templates 21 s, measured
    // here); the suite's other files share the cores meanwhile.
    600_000,
  );
});
