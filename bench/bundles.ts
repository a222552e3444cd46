import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as z from "zod";
import type { FunctionSpec } from "../lib/local/shared/cloud-assembly-model";
import { median } from "./scenarios";

export interface BundleFigure {
  readonly functionName: string;
  readonly bytes: number;
  /** Median ms to import the bundle in a fresh Node process (module-level code included). */
  readonly coldImportMs: number;
  /** Median ms of that import spent loading `@aws-sdk/*` packages (the outermost `require` of each). */
  readonly sdkImportMs: number;
  /**
   * Median ms of the import spent outside the SDK: the bundle's own parse and module-level code.
   * The median of each run's total minus its SDK time, so it need not equal cold minus SDK medians.
   */
  readonly ownImportMs: number;
  /** The `@aws-sdk/*` packages the bundle loaded, outermost requests only, in load order. */
  readonly sdkPackages: readonly string[];
  /** Median ms to load those packages alone in a fresh process (and build the clients every step builds). */
  readonly sdkFloorMs: number;
  /** The median of each run's cold import divided by the floor measured right after it. */
  readonly overSdkFloor: number;
}

/**
 * Imports one bundle in a fresh process and prints how long the import took, total and inside the
 * SDK. The bundles load @aws-sdk/* with `require` (the aws-sdk-require shims), which goes through
 * `Module._load`: the probe times each outermost such load, so an SDK package that requires another
 * (lib-dynamodb → client-dynamodb) and everything they require in turn is counted once.
 */
const IMPORT_PROBE = `
import Module from "node:module";
const load = Module._load;
let sdkMs = 0;
let inSdk = false;
const sdkPackages = [];
Module._load = function (request, ...rest) {
  if (inSdk || typeof request !== "string" || !request.startsWith("@aws-sdk/")) {
    return load.call(this, request, ...rest);
  }
  if (!sdkPackages.includes(request)) sdkPackages.push(request);
  const loadStarted = performance.now();
  inSdk = true;
  try {
    return load.call(this, request, ...rest);
  } finally {
    inSdk = false;
    sdkMs += performance.now() - loadStarted;
  }
};
const started = performance.now();
await import(process.argv[1]);
process.stdout.write(JSON.stringify({ totalMs: performance.now() - started, sdkMs, sdkPackages }));
`;

/** What the probe prints. */
const ProbeResultSchema = z.object({
  totalMs: z.number(),
  sdkMs: z.number(),
  sdkPackages: z.array(z.string()),
});

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The environment a probe process runs with: the function's variables (when there is a function),
 * dummy credentials and a region, so module-level clients build as in Lambda without a request.
 */
function probeEnvironment(fn?: FunctionSpec): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "",
    ...fn?.environment,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "bench",
    AWS_SECRET_ACCESS_KEY: "bench",
    ...(fn ? { AWS_LAMBDA_FUNCTION_NAME: fn.functionName } : {}),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
  };
}

/** Runs one probe script in a fresh Node process and parses the timing it prints. */
function runProbe<T>(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  schema: z.ZodType<T>,
  what: string,
): T {
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script, ...args], {
    env,
    encoding: "utf8",
    timeout: 30_000,
  });
  const parsed = schema.safeParse(safeJson(child.stdout));
  if (child.status !== 0 || !parsed.success) {
    const why = child.status !== 0 ? `exit status ${child.status ?? child.signal}` : "no timing on stdout";
    throw new Error(
      `${what} failed: ${why}; stdout: ${child.stdout.slice(0, 200)}; stderr: ${child.stderr.slice(0, 500)}`,
    );
  }
  return parsed.data;
}

/**
 * Loads the SDK packages given (argv[2], comma-separated) the way the bundles load them (CommonJS
 * `require` from the project's node_modules, in the bundle's order) and builds the clients every
 * step builds at module scope, the DynamoDB document client and the Bedrock runtime client, when
 * their packages are among them; nothing else: no goal-loops code, no Powertools, no zod. Other
 * clients a function builds are loaded, not built, so the floor stays at or below what the SDK
 * itself costs that function. It runs as an ES module file that SDK_FLOOR_PROBE imports, as the
 * import probe imports a bundle: both pay Node's loading of an ES module file (resolving, reading,
 * linking it), so the ratio compares the bundle's own code with nothing, not with that too.
 */
const SDK_FLOOR_MODULE = `
import { createRequire } from "node:module";
const require = createRequire(process.argv[2]);
const packages = process.argv[3] === "" ? [] : process.argv[3].split(",");
const loaded = Object.fromEntries(packages.map((name) => [name, require(name)]));
const dynamodb = loaded["@aws-sdk/client-dynamodb"];
const documents = loaded["@aws-sdk/lib-dynamodb"];
if (dynamodb && documents) {
  documents.DynamoDBDocumentClient.from(new dynamodb.DynamoDBClient({ region: process.env.AWS_REGION }));
}
const bedrock = loaded["@aws-sdk/client-bedrock-runtime"];
if (bedrock) new bedrock.BedrockRuntimeClient({ region: process.env.AWS_REGION });
`;

/** Times importing the floor module (argv[1]) in a fresh process. */
const SDK_FLOOR_PROBE = `
const started = performance.now();
await import(process.argv[1]);
process.stdout.write(JSON.stringify({ totalMs: performance.now() - started }));
`;

const FloorResultSchema = z.object({ totalMs: z.number() });

/**
 * Each Lambda bundle's size (index.mjs in its cdk.out asset folder) and its cold import time: the
 * median of `runs` fresh Node processes, each importing the bundle once with the function's
 * environment (module-level clients are built, no request is made). @aws-sdk/* is external in the
 * bundles; it resolves from node_modules here as from the runtime in Lambda. Each figure also splits
 * the import into the SDK's share and the bundle's own, to show which one a budget overrun comes from.
 * Right after each import, a fresh process loads the same SDK packages alone (SDK_FLOOR_PROBE): the
 * pair runs at the same load, and the figure is the median of the pairs' ratios.
 */
export function measureBundles(
  functions: readonly FunctionSpec[],
  runs: number,
  projectDir: string,
): BundleFigure[] {
  const resolveFrom = join(projectDir, "package.json");
  const floorDir = mkdtempSync(join(tmpdir(), "bench-sdk-floor-"));
  const floorModule = join(floorDir, "sdk-floor.mjs");
  writeFileSync(floorModule, SDK_FLOOR_MODULE);
  try {
    return functions.map((fn) => measureBundle(fn, runs, resolveFrom, floorModule));
  } finally {
    rmSync(floorDir, { recursive: true, force: true });
  }
}

/** One bundle's size and cold import against its SDK floor, each the median of `runs` fresh processes. */
function measureBundle(
  fn: FunctionSpec,
  runs: number,
  resolveFrom: string,
  floorModule: string,
): BundleFigure {
  const file = join(fn.assetDir, `${fn.handler.split(".")[0]}.mjs`);
  const totals: number[] = [];
  const sdkTimes: number[] = [];
  const ownTimes: number[] = [];
  const floors: number[] = [];
  const ratios: number[] = [];
  let sdkPackages: readonly string[] = [];
  for (let run = 0; run < runs; run += 1) {
    const result = runProbe(
      IMPORT_PROBE,
      [file],
      probeEnvironment(fn),
      ProbeResultSchema,
      `importing ${fn.functionName} (${file})`,
    );
    sdkPackages = result.sdkPackages;
    const floor = runProbe(
      SDK_FLOOR_PROBE,
      [floorModule, resolveFrom, sdkPackages.join(",")],
      probeEnvironment(),
      FloorResultSchema,
      `loading ${fn.functionName}'s SDK packages alone (${sdkPackages.join(", ") || "none"})`,
    );
    totals.push(result.totalMs);
    sdkTimes.push(result.sdkMs);
    ownTimes.push(result.totalMs - result.sdkMs);
    floors.push(floor.totalMs);
    ratios.push(result.totalMs / floor.totalMs);
  }
  return {
    functionName: fn.functionName,
    bytes: statSync(file).size,
    coldImportMs: median(totals),
    sdkImportMs: median(sdkTimes),
    ownImportMs: median(ownTimes),
    sdkPackages,
    sdkFloorMs: median(floors),
    overSdkFloor: median(ratios),
  };
}
