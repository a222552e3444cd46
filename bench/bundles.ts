import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import type { FunctionSpec } from "../lib/local/cloud-assembly-model";
import { median } from "./scenarios";

export interface BundleFigure {
  readonly functionName: string;
  readonly bytes: number;
  /** Median ms to import the bundle in a fresh Node process (module-level code included). */
  readonly coldImportMs: number;
}

/** Imports one bundle in a fresh process and prints how long the import took. */
const IMPORT_PROBE = `
const started = performance.now();
await import(process.argv[1]);
process.stdout.write(String(performance.now() - started));
`;

/**
 * Each Lambda bundle's size (index.mjs in its cdk.out asset folder) and its cold import time: the
 * median of `runs` fresh Node processes, each importing the bundle once with the function's
 * environment (module-level clients are built, no request is made). @aws-sdk/* is external in the
 * bundles; it resolves from node_modules here as from the runtime in Lambda.
 */
export function measureBundles(functions: readonly FunctionSpec[], runs: number): BundleFigure[] {
  return functions.map((fn) => {
    const file = join(
      fn.assetDir,
      fn.handler.split(".")[0] === "index" ? "index.mjs" : `${fn.handler.split(".")[0]}.mjs`,
    );
    const times: number[] = [];
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
      const ms = Number(child.stdout);
      if (child.status !== 0 || !Number.isFinite(ms)) {
        throw new Error(`importing ${fn.functionName} failed: ${child.stderr.slice(0, 500)}`);
      }
      times.push(ms);
    }
    return { functionName: fn.functionName, bytes: statSync(file).size, coldImportMs: median(times) };
  });
}
