import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ensureSynthesized, loadCloudAssembly, writeLocalSynthMarker } from "../../lib/local/cdk-out/cdk-out";
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

  beforeEach(() => {
    projectDir = mkdtempSync(path.join(tmpdir(), "goal-loops-project-"));
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
    await expect(missing).rejects.toThrow(/nope\.json: no such configuration file/);
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
    touch("bin/local.ts", 1);

    // Act
    const synthesized = await ensureSynthesized({ projectDir, synth, log: () => {} });

    // Assess
    expect(synthesized).toBe(false);
  });
});
