import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { globPattern } from "../../lib/local/cdk-out/app-sources";
import { loadCloudAssembly } from "../../lib/local/cdk-out/cdk-out";
import { ensureSynthesized, writeLocalSynthMarker } from "../../lib/local/cdk-out/ensure-synthesized";
import type { CloudAssemblyModel } from "../../lib/local/shared/cloud-assembly-model";
import { CloudAssemblyError } from "../../lib/local/shared/errors";
import { synthFixtureApp } from "./fixtures/fixture-app";

describe("loadCloudAssembly on the fixture app", () => {
  let model: CloudAssemblyModel;
  beforeAll(() => {
    model = loadCloudAssembly(synthFixtureApp());
  });

  it("reads every function with its asset folder and its environment resolved to local names", () => {
    // Act
    const workerA = model.functions.find((f) => f.logicalId.startsWith("WorkerA"));
    const workerB = model.functions.find((f) => f.logicalId.startsWith("WorkerB"));
    const items = model.tables.find((t) => t.logicalId.startsWith("Items"));

    // Assess: Ref of a table → its local name; a FunctionName set in the template is kept.
    expect(workerA).toMatchObject({
      functionName: workerA?.logicalId,
      arn: `arn:aws:lambda:us-east-1:000000000000:function:${workerA?.logicalId}`,
      handler: "index.handler",
      runtime: "nodejs22.x",
      timeoutSeconds: 10,
      environment: { FLAVOR: "a", TABLE_NAME: items?.tableName },
    });
    expect(workerA?.assetDir).toContain(model.outDir);
    expect(workerB).toMatchObject({
      functionName: "fixture-worker-b",
      environment: { TABLE_NAME: "plain-table" },
    });
    const api = model.functions.find((f) => f.logicalId.startsWith("ApiFn"));
    expect(JSON.parse(api?.environment.STATE_MACHINE_ARNS ?? "{}")).toEqual({
      flow: model.stateMachines[0]?.arn,
    });
  });

  it("resolves the state machine definition: every token becomes a local ARN", () => {
    // Act
    const [flow] = model.stateMachines;
    const text = JSON.stringify(flow?.definition);

    // Assess
    expect(flow).toMatchObject({
      type: "STANDARD",
      arn: `arn:aws:states:us-east-1:000000000000:stateMachine:${flow?.name}`,
    });
    expect(text).not.toMatch(/Fn::|"Ref"|\$\{Token/);
    expect(flow?.definition).toMatchObject({
      StartAt: "Route",
      States: {
        Flaky: { Resource: model.functions.find((f) => f.logicalId.startsWith("WorkerA"))?.arn },
        StartChild: { Resource: "arn:aws:lambda:us-east-1:000000000000:function:fixture-worker-b" },
        Approval: { Resource: "arn:aws:states:::lambda:invoke.waitForTaskToken" },
      },
    });
  });

  it("reads tables with keys, indexes and TTL", () => {
    // Act
    const items = model.tables.find((t) => t.logicalId.startsWith("Items"));
    const plain = model.tables.find((t) => t.tableName === "plain-table");

    // Assess
    expect(items).toMatchObject({
      tableName: items?.logicalId,
      keySchema: [
        { AttributeName: "pk", KeyType: "HASH" },
        { AttributeName: "sk", KeyType: "RANGE" },
      ],
      globalSecondaryIndexes: [{ IndexName: "gsi1", Projection: { ProjectionType: "ALL" } }],
      ttlAttribute: "ttl",
    });
    expect(plain).toMatchObject({
      keySchema: [{ AttributeName: "id", KeyType: "HASH" }],
      globalSecondaryIndexes: [],
    });
  });

  it("reads buckets under a lowercase local name, the one Ref gives the functions", () => {
    // Act
    const [payloads, ...others] = model.buckets;
    const workerB = model.functions.find((f) => f.functionName === "fixture-worker-b");

    // Assess
    expect(others).toEqual([]);
    expect(payloads?.logicalId).toMatch(/^Payloads[0-9A-F]{8}$/);
    expect(payloads?.bucketName).toBe(payloads?.logicalId.toLowerCase());
    expect(workerB?.environment.BUCKET_NAME).toBe(payloads?.bucketName);
  });

  it("reads event rules with their bus, pattern and targets", () => {
    // Act
    const [rule] = model.eventRules;

    // Assess
    expect(rule).toMatchObject({
      eventBusName: model.eventBuses[0]?.name,
      enabled: true,
      eventPattern: { source: ["fixture"], "detail-type": ["ping"], detail: { kind: [{ prefix: "go" }] } },
    });
    expect(rule?.targets.map((t) => t.kind)).toEqual(["lambda", "state-machine"]);
  });

  it("reads the REST API's Lambda proxy methods as routes", () => {
    // Act
    const routes = model.apiRoutes.map((r) => `${r.method} ${r.resourcePath}`);

    // Assess
    expect(routes).toEqual([
      "GET /items",
      "POST /items",
      "GET /items/{id}",
      "GET /items/{id}/events",
      "ANY /things/{proxy+}",
    ]);
  });
});

describe("loadCloudAssembly errors", () => {
  const dirs: string[] = [];
  const assembly = (resources: Record<string, unknown>) => {
    const dir = mkdtempSync(path.join(tmpdir(), "goal-loops-cdk-out-"));
    dirs.push(dir);
    writeFileSync(
      path.join(dir, "manifest.json"),
      JSON.stringify({
        artifacts: {
          S: { type: "aws:cloudformation:stack", properties: { templateFile: "S.template.json" } },
        },
      }),
    );
    writeFileSync(path.join(dir, "S.template.json"), JSON.stringify({ Resources: resources }));
    mkdirSync(path.join(dir, "asset.1"));
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("names the resource and the intrinsic it cannot resolve", () => {
    // Prepare
    const dir = assembly({
      Fn: {
        Type: "AWS::Lambda::Function",
        Metadata: { "aws:asset:path": "asset.1" },
        Properties: { Environment: { Variables: { URL: { "Fn::ImportValue": "OtherStack-Url" } } } },
      },
    });

    // Act + Assess
    expect(() => loadCloudAssembly(dir)).toThrow(CloudAssemblyError);
    expect(() => loadCloudAssembly(dir)).toThrow(
      /S\/Fn Environment\.Variables: the intrinsic Fn::ImportValue is not supported/,
    );
  });

  it("names the attribute it has no local value for", () => {
    // Prepare
    const dir = assembly({
      Topic: { Type: "AWS::SNS::Topic" },
      Fn: {
        Type: "AWS::Lambda::Function",
        Metadata: { "aws:asset:path": "asset.1" },
        Properties: { Environment: { Variables: { X: { "Fn::GetAtt": ["Topic", "Nope"] } } } },
      },
    });

    // Act + Assess
    expect(() => loadCloudAssembly(dir)).toThrow(
      /Fn::GetAtt Topic\.Nope \(AWS::SNS::Topic\) has no local value/,
    );
  });

  it("refuses a JSONata state machine, naming it", () => {
    // Prepare
    const definition = { QueryLanguage: "JSONata", StartAt: "P", States: { P: { Type: "Pass", End: true } } };
    const dir = assembly({
      Machine: {
        Type: "AWS::StepFunctions::StateMachine",
        Properties: { DefinitionString: JSON.stringify(definition) },
      },
    });

    // Act + Assess
    expect(() => loadCloudAssembly(dir)).toThrow(
      /S\/Machine: QueryLanguage JSONata is not supported locally/,
    );
  });

  /** An assembly of stacks `A`, `B` …, each with the metadata entries given (inline or in a file). */
  const appWith = (stacks: Record<string, { goalLoops: string[]; inFile?: boolean }>) => {
    const dir = mkdtempSync(path.join(tmpdir(), "goal-loops-app-"));
    dirs.push(dir);
    const artifacts: Record<string, unknown> = {};
    for (const [name, { goalLoops, inFile }] of Object.entries(stacks)) {
      const metadata = Object.fromEntries(
        goalLoops.map((construct) => [
          `/${name}/${construct}`,
          [{ type: "goal-loops:construct", data: { version: "9.9.9" } }],
        ]),
      );
      if (inFile) writeFileSync(path.join(dir, `${name}.metadata.json`), JSON.stringify(metadata));
      artifacts[name] = {
        type: "aws:cloudformation:stack",
        properties: { templateFile: `${name}.template.json` },
        ...(inFile ? { additionalMetadataFile: `${name}.metadata.json` } : { metadata }),
      };
      writeFileSync(path.join(dir, `${name}.template.json`), JSON.stringify({ Resources: {} }));
    }
    writeFileSync(path.join(dir, "manifest.json"), JSON.stringify({ artifacts }));
    return dir;
  };

  it("runs the stack that holds the GoalLoops construct, found by its metadata whatever the names", () => {
    // Prepare: the construct's metadata in the manifest, or (newer CDK) in the stack's metadata file
    const inline = appWith({ Network: { goalLoops: [] }, Platform: { goalLoops: ["Agents/Loops"] } });
    const inFile = appWith({ Platform: { goalLoops: ["Loops"], inFile: true }, Web: { goalLoops: [] } });

    // Act
    const fromInline = loadCloudAssembly(inline);
    const fromFile = loadCloudAssembly(inFile);

    // Assess
    expect(fromInline.stackNames).toEqual(["Platform"]);
    expect(fromInline.goalLoops).toEqual([
      { stackName: "Platform", path: "Platform/Agents/Loops", version: "9.9.9" },
    ]);
    expect(fromFile.stackNames).toEqual(["Platform"]);
    expect(fromFile.goalLoops.map((found) => found.path)).toEqual(["Platform/Loops"]);
  });

  it("runs the stack --stack names, and refuses two GoalLoops without it or an unknown name", () => {
    // Prepare
    const dir = appWith({ Staging: { goalLoops: ["Loops"] }, Prod: { goalLoops: ["Loops"] } });

    // Act
    const chosen = loadCloudAssembly(dir, { stack: "Prod" });

    // Assess
    expect(chosen.stackNames).toEqual(["Prod"]);
    expect(() => loadCloudAssembly(dir)).toThrow(
      /2 GoalLoops constructs \(Staging\/Loops, Prod\/Loops\); the local stack runs one: pass --stack <name> \(Staging, Prod\)/,
    );
    expect(() => loadCloudAssembly(dir, { stack: "Dev" })).toThrow(
      /No stack 'Dev' in the app \(its stacks: Staging, Prod\)/,
    );
  });

  it("refuses a folder without manifest.json, saying to synthesize", () => {
    // Prepare
    const dir = mkdtempSync(path.join(tmpdir(), "goal-loops-empty-"));
    dirs.push(dir);

    // Act + Assess
    expect(() => loadCloudAssembly(dir)).toThrow(/no manifest\.json\): run npx cdk synth first/);
  });
});

/** What every local synth runs: the CLI's synth, told it is for the local runtime. */
const LOCAL_SYNTH = ["synth", "--quiet", "--no-notices", "--context", "goal-loops:local=true"];

describe("ensureSynthesized", () => {
  let projectDir: string;
  const synths: string[][] = [];
  const synth = async (_dir: string, args: readonly string[]) => {
    synths.push([...args]);
    const outDir = path.join(projectDir, "cdk.out");
    mkdirSync(outDir, { recursive: true });
    writeFileSync(
      path.join(outDir, "manifest.json"),
      JSON.stringify({
        artifacts: {
          S: { type: "aws:cloudformation:stack", properties: { templateFile: "S.template.json" } },
        },
      }),
    );
    writeFileSync(path.join(outDir, "S.template.json"), JSON.stringify({ Resources: {} }));
  };
  const touch = (file: string, secondsAgo: number) => {
    const full = path.join(projectDir, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, "//");
    const time = new Date(Date.now() - secondsAgo * 1000);
    utimesSync(full, time, time);
  };

  /** cdk.out as a local synth leaves it: its manifest `secondsAgo`, and the marker saying it is local. */
  const localAssembly = (secondsAgo: number) => {
    touch("cdk.out/manifest.json", secondsAgo);
    writeLocalSynthMarker(path.join(projectDir, "cdk.out"), undefined);
  };

  /** The cdk.json of this repository's app: what the app is made of, as `cdk watch` reads it. */
  const REPOSITORY_CDK_JSON = {
    app: "npx tsx bin/app.ts",
    output: "cdk.out",
    watch: {
      include: ["bin/**", "lib/**", "lambdas/**"],
      exclude: ["node_modules", "cdk.out", "test", "lib/local/**", "bin/goal-loops*"],
    },
  };

  beforeEach(() => {
    projectDir = mkdtempSync(path.join(tmpdir(), "goal-loops-project-"));
    writeFileSync(path.join(projectDir, "cdk.json"), JSON.stringify(REPOSITORY_CDK_JSON));
  });
  afterEach(() => {
    synths.length = 0;
    rmSync(projectDir, { recursive: true, force: true });
  });

  it("synthesizes when there is no cdk.out, and says why", async () => {
    // Prepare
    touch("bin/app.ts", 100);
    const lines: string[] = [];

    // Act
    const synthesized = await ensureSynthesized({ projectDir, synth, log: (l) => lines.push(l) });

    // Assess
    expect(synthesized).toBe(true);
    expect(synths).toEqual([LOCAL_SYNTH]);
    expect(lines[0]).toContain("no cloud assembly yet");
  });

  it("synthesizes with --config's file, and again when that file changes or another is asked for", async () => {
    // Prepare
    touch("lib/construct.ts", 100);
    const config = path.join(projectDir, "staging.config.json");
    writeFileSync(config, '{"approvals":{"timeoutSeconds":600}}');
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);

    // Act
    await ensureSynthesized({ projectDir, synth, log, configFile: config });
    const again = await ensureSynthesized({ projectDir, synth, log, configFile: config });
    writeFileSync(config, '{"approvals":{"timeoutSeconds":900}}');
    const changed = await ensureSynthesized({ projectDir, synth, log, configFile: config });
    const projectsOwn = await ensureSynthesized({ projectDir, synth, log });
    const missing = ensureSynthesized({
      projectDir,
      synth,
      log,
      configFile: path.join(projectDir, "nope.json"),
    });

    // Assess
    expect(again).toBe(false);
    expect(changed).toBe(true);
    expect(projectsOwn).toBe(true);
    expect(synths).toEqual([
      [...LOCAL_SYNTH, "--context", `config=${config}`],
      [...LOCAL_SYNTH, "--context", `config=${config}`],
      LOCAL_SYNTH,
    ]);
    expect(lines.slice(1)).toEqual([
      expect.stringContaining("staging.config.json changed since the last synth"),
      expect.stringContaining("built from staging.config.json, not the project's configuration"),
    ]);
    await expect(missing).rejects.toThrow(/nope\.json: no such configuration file$/);
    await expect(
      ensureSynthesized({ projectDir, synth, log, configFile: [config, config].join(path.delimiter) }),
    ).rejects.toThrow("no such configuration file (the local stack runs one configuration: name one file)");
  });

  it("synthesizes again when the project's goal-loops.config.json changed", async () => {
    // Prepare
    touch("lib/construct.ts", 100);
    localAssembly(50);
    touch("goal-loops.config.json", 10);

    // Act
    const lines: string[] = [];
    const synthesized = await ensureSynthesized({ projectDir, synth, log: (l) => lines.push(l) });

    // Assess
    expect(synthesized).toBe(true);
    expect(lines[0]).toContain("goal-loops.config.json changed since the last synth");
  });

  it("does nothing when cdk.out is newer than every source", async () => {
    // Prepare
    touch("lib/construct.ts", 50);
    localAssembly(10);

    // Act
    const synthesized = await ensureSynthesized({ projectDir, synth, log: () => {} });

    // Assess
    expect(synthesized).toBe(false);
    expect(synths).toEqual([]);
  });

  it("synthesizes again a cdk.out that `cdk synth` built, which is not for the local runtime", async () => {
    // Prepare: a fresh assembly without the local marker (pinned to the shell's account, say)
    touch("lib/construct.ts", 50);
    touch("cdk.out/manifest.json", 10);
    const lines: string[] = [];

    // Act
    const synthesized = await ensureSynthesized({ projectDir, synth, log: (l) => lines.push(l) });

    // Assess
    expect(synthesized).toBe(true);
    expect(synths).toEqual([LOCAL_SYNTH]);
    expect(lines[0]).toContain("built by cdk synth, not for the local runtime");
  });

  it("synthesizes again when `cdk synth` wrote into cdk.out after a local synth, which left its marker", async () => {
    // Prepare: a local synth, then `cdk synth` over it (a new manifest; the CLI removes no file)
    touch("lib/construct.ts", 50);
    localAssembly(20);
    writeFileSync(path.join(projectDir, "cdk.out", "manifest.json"), JSON.stringify({ pinned: true }));
    const lines: string[] = [];

    // Act
    const synthesized = await ensureSynthesized({ projectDir, synth, log: (l) => lines.push(l) });
    const again = await ensureSynthesized({ projectDir, synth, log: (l) => lines.push(l) });

    // Assess: synthesized for the local runtime once, then current
    expect([synthesized, again]).toEqual([true, false]);
    expect(synths).toEqual([LOCAL_SYNTH]);
    expect(lines[0]).toContain("built by cdk synth since the last local synth, not for the local runtime");
  });

  it("synthesizes again over a marker cut short (a crash while it was written), not failing on its JSON", async () => {
    // Prepare
    touch("lib/construct.ts", 50);
    localAssembly(20);
    writeFileSync(path.join(projectDir, "cdk.out", "goal-loops-config.json"), '{"file":"","sha2');
    const lines: string[] = [];

    // Act
    const synthesized = await ensureSynthesized({ projectDir, synth, log: (l) => lines.push(l) });

    // Assess
    expect(synthesized).toBe(true);
    expect(synths).toEqual([LOCAL_SYNTH]);
    expect(lines[0]).toContain(
      "its goal-loops-config.json is from an older goal-loops or was cut short, not for the local runtime",
    );
  });

  it("synthesizes again when a source under lambdas/ changed since", async () => {
    // Prepare
    touch("bin/app.ts", 50);
    localAssembly(10);
    touch("lambdas/handlers/step.ts", 1);
    const lines: string[] = [];

    // Act
    await ensureSynthesized({ projectDir, synth, log: (l) => lines.push(l) });

    // Assess
    expect(synths).toHaveLength(1);
    expect(lines[0]).toContain(path.join("lambdas", "handlers", "step.ts"));
  });

  it("ignores the local runtime's own sources, which are not part of the app", async () => {
    // Prepare
    touch("lib/construct.ts", 50);
    localAssembly(10);
    touch("lib/local/local-stack.ts", 1);
    touch("bin/goal-loops-start.ts", 1);
    touch("test/local/cdk-out.test.ts", 1);

    // Act
    const synthesized = await ensureSynthesized({ projectDir, synth, log: () => {} });

    // Assess
    expect(synthesized).toBe(false);
  });
  it("follows a project's own cdk.json: every file its watch globs include, none they exclude", async () => {
    // Prepare: `cdk init`'s globs, the app under src/
    writeFileSync(
      path.join(projectDir, "cdk.json"),
      JSON.stringify({
        app: "npx tsx src/main.ts",
        watch: { include: ["**"], exclude: ["README.md", "cdk*.json", "**/*.d.ts", "**/*.js", "test"] },
      }),
    );
    touch("src/platform-stack.ts", 50);
    localAssembly(10);
    touch("README.md", 1);
    touch("src/platform-stack.d.ts", 1);
    touch("test/platform.test.ts", 1);
    touch("node_modules/aws-cdk-lib/index.js", 1);
    const quiet = await ensureSynthesized({ projectDir, synth, log: () => {} });
    touch("src/constructs/queue.ts", 1);
    const lines: string[] = [];

    // Act
    const synthesized = await ensureSynthesized({ projectDir, synth, log: (line) => lines.push(line) });

    // Assess
    expect(quiet).toBe(false);
    expect(synthesized).toBe(true);
    expect(lines[0]).toContain("src/constructs/queue.ts changed since the last synth");
  });

  it("synthesizes with --app's command, and again when the command changes", async () => {
    // Prepare
    touch("bin/app.ts", 50);
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);

    // Act
    await ensureSynthesized({ projectDir, synth, log, app: "node bin/platform.js" });
    const again = await ensureSynthesized({ projectDir, synth, log, app: "node bin/platform.js" });
    const projectsOwn = await ensureSynthesized({ projectDir, synth, log });

    // Assess
    expect(again).toBe(false);
    expect(projectsOwn).toBe(true);
    expect(synths).toEqual([[...LOCAL_SYNTH, "--app", "node bin/platform.js"], LOCAL_SYNTH]);
    expect(lines[1]).toContain("built by another app command");
  });

  it("refuses a folder that is no CDK project, saying what to pass", async () => {
    // Prepare
    rmSync(path.join(projectDir, "cdk.json"));

    // Act + Assess
    await expect(ensureSynthesized({ projectDir, synth, log: () => {} })).rejects.toThrow(
      /No CDK app in .* \(no cdk.json with an "app"\): run this in your CDK project, or pass --app <cdk.out folder \| command>/,
    );
  });
});

describe("cdk.json watch globs", () => {
  it("match as the CDK CLI's watcher does: ** across folders, * within a name, a folder with its files", () => {
    // Act
    const matches = (glob: string, file: string) => globPattern(glob).test(file);

    // Assess
    expect(matches("**", "src/a/b.ts")).toBe(true);
    expect(matches("lib/**", "lib/constructs/x.ts")).toBe(true);
    expect(matches("lib/**", "lambdas/x.ts")).toBe(false);
    expect(matches("**/*.d.ts", "src/a.d.ts")).toBe(true);
    expect(matches("**/*.d.ts", "a.d.ts")).toBe(true);
    expect(matches("**/*.d.ts", "src/a.ts")).toBe(false);
    expect(matches("test", "test/unit/x.ts")).toBe(true);
    expect(matches("test", "src/test.ts")).toBe(false);
    expect(matches("bin/goal-loops*", "bin/goal-loops-start.ts")).toBe(true);
    expect(matches("bin/goal-loops*", "bin/app.ts")).toBe(false);
    expect(matches("cdk*.json", "cdk.context.json")).toBe(true);
  });
});
