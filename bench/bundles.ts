import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod";
import type { FunctionSpec } from "../lib/local/cloud-assembly-model";
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
      const child = spawnSync(process.execPath, ["--input-type=module", "-e", IMPORT_PROBE, file], {
        env: {
          PATH: process.env.PATH ?? "",
          ...fn.environment,
          AWS_REGION: "us-east-1",
          AWS_ACCESS_KEY_ID: "bench",
          AWS_SECRET_ACCESS_KEY: "bench",
          AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
        },
        encoding: "utf8",
        timeout: 30_000,
      });
      const parsed = ProbeResultSchema.safeParse(safeJson(child.stdout));
      if (child.status !== 0 || !parsed.success) {
        const why =
          child.status !== 0 ? `exit status ${child.status ?? child.signal}` : "no timing on stdout";
        throw new Error(
          `importing ${fn.functionName} (${file}) failed: ${why}; stdout: ${child.stdout.slice(0, 200)}; stderr: ${child.stderr.slice(0, 500)}`,
        );
      }
      const result = parsed.data;
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
