import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { GoalLoopsClient } from "../../lib/client/index";
import { HANDLER_BUNDLES } from "../../lib/constructs/handler-bundles";
import { followGoal } from "../e2e/local-stack-harness";
import { run, type ServingProcess, startServing } from "./commands";
import { writeConsumerProject } from "./consumer-project";

/**
 * What `npm install goal-loops` gives: the tarball `npm pack` makes (publint and arethetypeswrong
 * on it, its contents), and a CDK app of a platform team's own, in a folder outside this
 * repository, that installs it from the tarball and npm's cache alone (offline), type-checks
 * against its declarations, synthesizes cdk-nag clean as `cdk deploy` would, and runs on the local
 * stack with `goal-loops start --app cdk.out`, where the README's ReAct example completes.
 */

const PROJECT_DIR = path.resolve(import.meta.dirname, "../..");
const node = process.execPath;
const elapsed: string[] = [];

const PackResultSchema = z.array(
  z.looseObject({ filename: z.string(), files: z.array(z.looseObject({ path: z.string() })) }),
);
const ManifestSchema = z.looseObject({
  artifacts: z.record(z.string(), z.looseObject({ type: z.string(), environment: z.string().optional() })),
});
const ReportSchema = z.looseObject({
  pluginReports: z.array(z.looseObject({ pluginName: z.string(), violations: z.array(z.unknown()) })),
});
const TemplateSchema = z.looseObject({
  Resources: z.record(
    z.string(),
    z.looseObject({ Type: z.string(), Metadata: z.record(z.string(), z.unknown()).optional() }),
  ),
});
const MetafileSchema = z.looseObject({
  outputs: z.record(
    z.string(),
    z.looseObject({
      imports: z.array(z.looseObject({ path: z.string(), external: z.boolean().optional() })),
    }),
  ),
});
const PackageJsonSchema = z.looseObject({
  dependencies: z.record(z.string(), z.string()),
  peerDependencies: z.record(z.string(), z.string()),
});

/** What the package's consumers install with it: its dependencies and peer dependencies. */
function declaredPackages(): Set<string> {
  const manifest = PackageJsonSchema.parse(
    JSON.parse(readFileSync(path.join(PROJECT_DIR, "package.json"), "utf8")),
  );
  return new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)]);
}

/** The package a module specifier names: `@scope/name` or `name`, without a subpath. */
function packageOf(specifier: string): string {
  return specifier.startsWith("@")
    ? specifier.split("/").slice(0, 2).join("/")
    : (specifier.split("/")[0] ?? "");
}

/** A shell without AWS credentials or profiles: the CDK CLI keeps the exported account and region. */
function offlineEnvironment(workDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(AWS_|CDK_)/.test(name)) delete env[name];
  }
  const empty = path.join(workDir, "no-aws-config");
  writeFileSync(empty, "");
  return {
    ...env,
    AWS_CONFIG_FILE: empty,
    AWS_SHARED_CREDENTIALS_FILE: empty,
    AWS_EC2_METADATA_DISABLED: "true",
    CDK_DISABLE_CLI_TELEMETRY: "true",
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
  };
}

let workDir: string;
let tarball: string;
let packedFiles: string[];

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), "goal-loops-package-"));
  // npm pack runs prepack (npm run build): it builds the library, which only this file uses (the
  // tests' global setup leaves it out), and finds the bundles and the CLI fresh.
  const packed = await run("npm", ["pack", "--json", "--pack-destination", workDir], {
    cwd: PROJECT_DIR,
    env: offlineEnvironment(workDir),
  });
  elapsed.push(`npm pack ${packed.seconds.toFixed(1)} s`);
  expect(packed.code, packed.output).toBe(0);
  const [result] = PackResultSchema.parse(JSON.parse(packed.output.slice(packed.output.indexOf("["))));
  if (result === undefined) throw new Error("npm pack reported no tarball");
  tarball = path.join(workDir, result.filename);
  packedFiles = result.files.map((file) => file.path);
}, 300_000);

afterAll(() => {
  console.log(`package test: ${elapsed.join(", ")}`);
  rmSync(workDir, { recursive: true, force: true });
});

describe("the package npm pack makes", () => {
  it("passes publint, and arethetypeswrong for ESM (CommonJS loads it with require(esm), Node 20.19+)", async () => {
    // Act
    const publint = await run(node, [bin("publint"), "run", tarball, "--strict"], { cwd: workDir });
    const attw = await run(
      node,
      [
        bin("@arethetypeswrong/cli", "attw"),
        tarball,
        "--ignore-rules",
        "cjs-resolves-to-esm",
        // The package ships its own types: DefinitelyTyped has nothing to add (and it is offline).
        "--no-definitely-typed",
        // A JSON document (the OpenAPI file), not code: only `exports` names it, which node10 never reads.
        "--exclude-entrypoints",
        "openapi.json",
        "--format",
        "table-flipped",
      ],
      { cwd: workDir },
    );

    // Assess
    expect(publint.code, publint.output).toBe(0);
    expect(publint.output).toContain("All good!");
    expect(attw.code, attw.output).toBe(0);
  }, 120_000);

  it("ships compiled JavaScript, declarations, the console and one pre-built bundle per handler, and no TypeScript source", () => {
    // Assess
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        "package.json",
        "README.md",
        "bin/goal-loops.mjs",
        "dist/index.js",
        "dist/types/lib/index.d.ts",
        "dist/cli/goal-loops.js",
        "dist/cli/lambda-worker.mjs",
        "dist/console/app.js",
        "dist/console/app.css",
        "dist/openapi.json",
        "lib/config/goal-loops.config.schema.json",
        "examples/goals/write-release-summary.json",
        "examples/fixtures/write-release-summary.json",
        ...Object.keys(HANDLER_BUNDLES).map((name) => `dist/lambdas/${name}/index.mjs`),
      ]),
    );
    const typescript = packedFiles.filter(
      (file) => /\.tsx?$/.test(file) && !file.endsWith(".d.ts") && !file.startsWith("examples/tools/"),
    );
    expect(typescript).toEqual([]);
    expect(packedFiles.filter((file) => file.startsWith("dist/build/"))).toEqual([]);
  });

  it("imports at run time only packages it depends on (the library and the CLI leave every package external)", () => {
    // Prepare
    const declared = declaredPackages();

    // Act
    const imported = ["library", "cli"].flatMap((part) => {
      const metafile = MetafileSchema.parse(
        JSON.parse(readFileSync(path.join(PROJECT_DIR, "dist", "build", `${part}.meta.json`), "utf8")),
      );
      return Object.values(metafile.outputs).flatMap((output) =>
        output.imports.filter((i) => i.external && !i.path.startsWith("node:")).map((i) => packageOf(i.path)),
      );
    });

    // Assess
    expect(imported.length).toBeGreaterThan(0);
    expect([...new Set(imported)].filter((name) => !declared.has(name))).toEqual([]);
  });

  it("declares every package its declarations import, so a consumer's type-check resolves them all", () => {
    // Prepare: the packed declaration files, as a consumer without skipLibCheck checks them
    const declared = declaredPackages();
    const declarations = packedFiles.filter((file) => file.endsWith(".d.ts"));

    // Act: every bare specifier an import, export or import type of them names
    const imported = declarations.flatMap((file) =>
      [
        ...readFileSync(path.join(PROJECT_DIR, file), "utf8").matchAll(
          /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|reference\s+types=)["']([^"'.][^"']*)["']/g,
        ),
      ].map((match) => packageOf(match[1] ?? "")),
    );

    // Assess: node's own modules come with @types/node, which a Node project has; the rest are declared
    expect(declarations.length).toBeGreaterThan(0);
    expect(imported).toContain("aws-cdk-lib");
    const undeclared = [...new Set(imported)].filter(
      (name) => !declared.has(name) && !name.startsWith("node:") && !builtinModules.includes(name),
    );
    expect(undeclared).toEqual([]);
  });
});

describe("a CDK app of one's own composing GoalLoops, installed from the tarball", () => {
  let project: string;
  let env: NodeJS.ProcessEnv;
  let install: Awaited<ReturnType<typeof run>>;
  let typecheck: Awaited<ReturnType<typeof run>>;
  let synth: Awaited<ReturnType<typeof run>>;
  let serving: ServingProcess | undefined;

  beforeAll(async () => {
    // Prepare: the project in a folder of its own, outside this repository
    project = mkdtempSync(path.join(tmpdir(), "platform-app-"));
    writeConsumerProject(project, tarball);
    env = offlineEnvironment(workDir);

    // Act: install offline, type-check, synthesize pinned, serve
    install = await run("npm", ["ci", "--offline", "--no-audit", "--no-fund", "--ignore-scripts"], {
      cwd: project,
      env,
    });
    elapsed.push(`npm ci --offline ${install.seconds.toFixed(1)} s`);
    if (install.code !== 0) return;
    typecheck = await run(node, [path.join(project, "node_modules/typescript/bin/tsc"), "-p", "."], {
      cwd: project,
      env,
    });
    elapsed.push(`tsc ${typecheck.seconds.toFixed(1)} s`);
    synth = await run(
      node,
      [path.join(project, "node_modules/aws-cdk/bin/cdk"), "synth", "--quiet", "--no-notices"],
      {
        cwd: project,
        env: {
          ...env,
          CDK_DEFAULT_ACCOUNT: "123456789012",
          CDK_DEFAULT_REGION: "eu-west-1",
          AWS_REGION: "eu-west-1",
        },
      },
    );
    elapsed.push(`cdk synth ${synth.seconds.toFixed(1)} s`);
    if (synth.code !== 0) return;
    const started = performance.now();
    serving = await startServing(
      path.join(project, "node_modules/.bin/goal-loops"),
      ["start", "--app", "cdk.out", "--port", "0", "--in-memory"],
      { cwd: project, env, startupMs: 120_000 },
    );
    elapsed.push(`goal-loops start ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }, 600_000);

  afterAll(async () => {
    const started = performance.now();
    await serving?.stop();
    // Its node_modules holds some 20,000 files.
    if (project !== undefined) rmSync(project, { recursive: true, force: true });
    elapsed.push(`stop and clean up ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }, 180_000);

  it("installs from the tarball and npm's cache alone, and type-checks against the package's declarations", () => {
    // Assess
    expect(install.code, install.output).toBe(0);
    const installed = path.join(project, "node_modules", "goal-loops");
    expect(lstatSync(installed).isSymbolicLink()).toBe(false);
    expect(existsSync(path.join(installed, "lib", "index.ts"))).toBe(false);
    expect(typecheck.code, typecheck.output).toBe(0);
  });

  it("synthesizes pinned to the account and region, cdk-nag clean, its own bucket beside the loops", () => {
    // Assess
    expect(synth.code, synth.output.slice(-4000)).toBe(0);
    const outDir = path.join(project, "cdk.out");
    const report = ReportSchema.parse(
      JSON.parse(readFileSync(path.join(outDir, "validation-report.json"), "utf8")),
    );
    expect(report.pluginReports.map((plugin) => plugin.pluginName)).toEqual(["AwsSolutions"]);
    expect(report.pluginReports.flatMap((plugin) => plugin.violations)).toEqual([]);
    const manifest = ManifestSchema.parse(
      JSON.parse(readFileSync(path.join(outDir, "manifest.json"), "utf8")),
    );
    const stacks = Object.values(manifest.artifacts).filter((a) => a.type === "aws:cloudformation:stack");
    expect(stacks.map((stack) => stack.environment)).toEqual(["aws://123456789012/eu-west-1"]);
    const template = TemplateSchema.parse(
      JSON.parse(readFileSync(path.join(outDir, "Platform.template.json"), "utf8")),
    );
    const types = Object.entries(template.Resources).map(([id, resource]) => `${id} ${resource.Type}`);
    expect(types).toContainEqual(expect.stringMatching(/^Reports[0-9A-F]{8} AWS::S3::Bucket$/));
    expect(types.filter((type) => type.endsWith("AWS::StepFunctions::StateMachine"))).toHaveLength(3);
    // No bundling at synth: every function's code is a pre-built bundle of the package, as shipped.
    const functions = Object.values(template.Resources).filter((r) => r.Type === "AWS::Lambda::Function");
    // Every bundle but those only an option deploys: the MCP gateway (tools.mcp), the JWT
    // authorizer (api.auth.mode "jwt") and the secret-age probe (owners in secrets); this app sets none.
    const optionOnly = ["mcp-gateway", "jwt-authorizer", "secret-age-probe"];
    expect(functions.length).toBeGreaterThanOrEqual(Object.keys(HANDLER_BUNDLES).length - optionOnly.length);
    expect(new Set(functions.map((fn) => fn.Metadata?.["aws:asset:is-bundled"]))).toEqual(new Set([false]));
    // Nothing in the assembly points back into this repository: the bundles came from the tarball.
    const assemblyText = readdirSync(outDir)
      .filter((file) => file.endsWith(".json"))
      .map((file) => readFileSync(path.join(outDir, file), "utf8"))
      .join("\n");
    expect(assemblyText).not.toContain(PROJECT_DIR);
  });

  it("serves it with goal-loops start --app cdk.out, and the README's ReAct example completes over HTTP", async () => {
    // Prepare
    if (serving === undefined)
      throw new Error(`the stack did not start:\n${synth?.output ?? install.output}`);
    const client = new GoalLoopsClient(serving.apiUrl);
    const example = JSON.parse(
      readFileSync(
        path.join(project, "node_modules/goal-loops/examples/goals/write-release-summary.json"),
        "utf8",
      ),
    );

    // Act
    const accepted = await client.submitGoal(example);
    const { final } = await followGoal(client, accepted.goalId, { deadlineMs: 60_000 });
    const consolePage = await fetch(`${serving.apiUrl}/console/app.js`);

    // Assess
    expect(serving.output()).toContain("GoalLoops Platform/Loops");
    expect(final.status).toBe("completed");
    expect(final.satisfiedChecks).toEqual(["summary-written"]);
    expect(consolePage.status).toBe(200);
  }, 90_000);

  it("runs the CLI's goal commands from the installed package against that stack", async () => {
    // Prepare
    if (serving === undefined) throw new Error("the stack did not start");
    const port = new URL(serving.apiUrl).port;
    const cli = path.join(project, "node_modules/.bin/goal-loops");
    const example = "node_modules/goal-loops/examples/goals/write-release-summary.json";

    // Act
    const ran = await run(cli, ["run", example, "--port", port, "--events"], { cwd: project, env });
    const goalId = /Goal (\S+) completed/.exec(ran.output)?.[1] ?? "";
    const status = await run(cli, ["status", goalId, "--port", port, "--json"], { cwd: project, env });
    const approvals = await run(cli, ["approvals", "--port", port], { cwd: project, env });

    // Assess
    expect(ran.code, ran.output).toBe(0);
    expect(status.code, status.output).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ goalId, status: "completed" });
    expect(approvals.code, approvals.output).toBe(0);
    expect(approvals.output).toContain("No pending approvals");
  }, 90_000);

  it("answers goal-loops --help from the installed package, every command listed", async () => {
    // Act
    const help = await run(path.join(project, "node_modules/.bin/goal-loops"), ["--help"], {
      cwd: project,
      env,
    });

    // Assess
    expect(help.code, help.output).toBe(0);
    for (const command of ["start", "run", "status", "watch", "approvals", "console", "preflight", "tools"]) {
      expect(help.output).toMatch(new RegExp(`^  ${command} `, "m"));
    }
  });
});

/** A development dependency's command, by its package's bin. */
function bin(packageName: string, name = packageName): string {
  const manifest = z
    .looseObject({ bin: z.union([z.string(), z.record(z.string(), z.string())]) })
    .parse(
      JSON.parse(readFileSync(path.join(PROJECT_DIR, "node_modules", packageName, "package.json"), "utf8")),
    );
  const file = typeof manifest.bin === "string" ? manifest.bin : manifest.bin[name];
  if (file === undefined) throw new Error(`${packageName} has no bin ${name}`);
  return path.join(PROJECT_DIR, "node_modules", packageName, file);
}
