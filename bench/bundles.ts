import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
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
Module._load = function (request, ...rest) {
  if (inSdk || typeof request !== "string" || !request.startsWith("@aws-sdk/")) {
    return load.call(this, request, ...rest);
  }
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
process.stdout.write(JSON.stringify({ totalMs: performance.now() - started, sdkMs }));
`;

/** What the probe prints. */
const ProbeResultSchema = z.object({ totalMs: z.number(), sdkMs: z.number() });

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
 * Each Lambda bundle's size (index.mjs in its cdk.out asset folder) and its cold import time: the
 * median of `runs` fresh Node processes, each importing the bundle once with the function's
 * environment (module-level clients are built, no request is made). @aws-sdk/* is external in the
 * bundles; it resolves from node_modules here as from the runtime in Lambda. Each figure also splits
 * the import into the SDK's share and the bundle's own, to show which one a budget overrun comes from.
 */
export function measureBundles(functions: readonly FunctionSpec[], runs: number): BundleFigure[] {
  return functions.map((fn) => {
    const file = join(fn.assetDir, `${fn.handler.split(".")[0]}.mjs`);
    const totals: number[] = [];
    const sdkTimes: number[] = [];
    const ownTimes: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      const result = runProbe(
        IMPORT_PROBE,
        [file],
        probeEnvironment(fn),
        ProbeResultSchema,
        `importing ${fn.functionName} (${file})`,
      );
      totals.push(result.totalMs);
      sdkTimes.push(result.sdkMs);
      ownTimes.push(result.totalMs - result.sdkMs);
    }
    return {
      functionName: fn.functionName,
      bytes: statSync(file).size,
      coldImportMs: median(totals),
      sdkImportMs: median(sdkTimes),
      ownImportMs: median(ownTimes),
    };
  });
}

/**
 * Loads the SDK packages a loop step needs, the way the bundles load them (CommonJS `require` from
 * the project's node_modules), and builds their clients with defaults, and nothing else: no
 * goal-loops code, no Powertools, no zod. With `bedrock` it adds the Bedrock runtime client that
 * every model-calling step builds too.
 */
const SDK_FLOOR_PROBE = `
import { createRequire } from "node:module";
const require = createRequire(process.argv[1]);
const started = performance.now();
const { DynamoDBClient } = require("@aws-sdk/client-dynamodb");
const { DynamoDBDocumentClient } = require("@aws-sdk/lib-dynamodb");
DynamoDBDocumentClient.from(new DynamoDBClient({ region: process.env.AWS_REGION }));
if (process.argv[2] === "bedrock") {
  const { BedrockRuntimeClient } = require("@aws-sdk/client-bedrock-runtime");
  new BedrockRuntimeClient({ region: process.env.AWS_REGION });
}
process.stdout.write(JSON.stringify({ totalMs: performance.now() - started }));
`;

const FloorResultSchema = z.object({ totalMs: z.number() });

export interface SdkFloor {
  /** Median ms to load the two DynamoDB packages and build the document client. */
  readonly dynamoDbMs: number;
  /** The same with the Bedrock runtime client added. */
  readonly withBedrockMs: number;
}

/**
 * What the SDK alone costs a cold process on this machine: the floor under the cold import of a
 * bundle that builds these clients, which can import no faster than they load. Printed beside the
 * budget so a reader can tell how much of it is left for the bundle's own code.
 */
export function measureSdkFloor(projectDir: string, runs: number): SdkFloor {
  const resolveFrom = join(projectDir, "package.json");
  const medianOf = (variant: "dynamodb" | "bedrock") => {
    const times: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      const result = runProbe(
        SDK_FLOOR_PROBE,
        [resolveFrom, variant],
        probeEnvironment(),
        FloorResultSchema,
        `loading the SDK clients alone (${variant})`,
      );
      times.push(result.totalMs);
    }
    return median(times);
  };
  return { dynamoDbMs: medianOf("dynamodb"), withBedrockMs: medianOf("bedrock") };
}
