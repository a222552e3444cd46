import { readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { type BuildOptions, build, type Metafile } from "esbuild";
import { goalSpecJsonSchema } from "../../lambdas/core/goal/goal-spec";
import { BUILD_TOOLING, projectPaths, staleReason, writeAtomically, writeBuildRecord } from "./build-record";

export interface BuildCliOptions {
  readonly projectDir: string;
  /** Rebuild even when fresh. @default false */
  readonly force?: boolean;
  /** @default console.log */
  readonly log?: (line: string) => void;
}

/** The record bin/goal-loops.mjs checks in a clone before it runs the compiled CLI. */
export const CLI_RECORD = "dist/build/cli.json";

/**
 * Files the local runtime loads by path rather than by import: the Lambda sandbox's worker thread
 * and its handler loader, plain JavaScript that runs as it is. They sit beside the CLI's chunks,
 * where `new URL("./lambda-worker.mjs", import.meta.url)` finds them.
 */
export const CLI_WORKER_FILES = ["lib/local/lambda/lambda-worker.mjs", "lib/local/lambda/load-handler.mjs"];

/**
 * The CLI and the web console as the package ships them. The CLI is bin/goal-loops.ts bundled
 * into `dist/cli/` with code splitting, so each command's modules load only when it runs (`--help`
 * loads commander and the command table alone); every package stays external. The console is
 * console/src bundled with Preact into `dist/console/app.js` and `app.css`, with the GoalSpec JSON
 * Schema its form validates against compiled in. Returns whether it built.
 */
export async function buildCli(options: BuildCliOptions): Promise<boolean> {
  const { projectDir, force = false, log = console.log } = options;
  const record = path.join(projectDir, CLI_RECORD);
  const reason = force ? "forced" : staleReason(projectDir, record);
  if (reason === undefined) return false;
  log(`Building the CLI and the console into dist/cli and dist/console (${reason})`);
  const builtAt = Date.now();
  const [cli, consoleBundle] = await Promise.all([bundleCli(projectDir), bundleConsole(projectDir)]);
  const workers = CLI_WORKER_FILES.map((file) => {
    const target = path.join(projectDir, "dist", "cli", path.basename(file));
    writeAtomically(target, readFileSync(path.join(projectDir, file)));
    return target;
  });
  removeAllBut(path.join(projectDir, "dist", "cli"), [...cli.outputs, ...workers]);
  writeAtomically(path.join(projectDir, "dist", "build", "cli.meta.json"), JSON.stringify(cli.metafile));
  writeBuildRecord(record, {
    builtAt,
    inputs: [
      ...new Set([
        ...projectPaths(projectDir, Object.keys(cli.metafile.inputs)),
        ...projectPaths(projectDir, Object.keys(consoleBundle.metafile.inputs)),
        ...CLI_WORKER_FILES,
        // The console's GoalSpec JSON Schema is generated from it (a define, not an import).
        "lambdas/core/goal/goal-spec.ts",
        ...BUILD_TOOLING,
      ]),
    ],
    outputs: projectPaths(projectDir, [...cli.outputs, ...consoleBundle.outputs, ...workers]),
  });
  return true;
}

interface Bundle {
  readonly metafile: Metafile;
  readonly outputs: string[];
}

async function bundleCli(projectDir: string): Promise<Bundle> {
  const result = await build(cliBuildOptions(projectDir, path.join(projectDir, "dist", "cli")));
  for (const output of result.outputFiles) writeAtomically(output.path, output.contents);
  return { metafile: result.metafile, outputs: result.outputFiles.map((output) => output.path) };
}

async function bundleConsole(projectDir: string): Promise<Bundle> {
  const consoleDir = path.join(projectDir, "console");
  const result = await build({
    absWorkingDir: projectDir,
    entryPoints: { app: path.join(consoleDir, "src", "main.tsx") },
    outdir: path.join(projectDir, "dist", "console"),
    bundle: true,
    format: "esm",
    target: "es2022",
    minify: true,
    jsx: "automatic",
    jsxImportSource: "preact",
    tsconfig: path.join(consoleDir, "tsconfig.json"),
    define: { GOAL_SPEC_JSON_SCHEMA: JSON.stringify(goalSpecJsonSchema()) },
    // The typed client's modules also serve Node: hashing is aliased to a browser stand-in the page
    // never calls, and the SigV4 signer's SDK packages (loaded on a signed request only; the page
    // never signs) stay out of the bundle.
    alias: { "node:crypto": path.join(consoleDir, "src", "browser-crypto.ts") },
    external: ["@aws-sdk/*", "@smithy/*"],
    metafile: true,
    write: false,
    logLevel: "warning",
  });
  for (const output of result.outputFiles) writeAtomically(output.path, output.contents);
  return { metafile: result.metafile, outputs: result.outputFiles.map((output) => output.path) };
}

/**
 * The esbuild options of the CLI, its chunks written to `outdir` (in memory: `write: false`), with
 * the worker files (CLI_WORKER_FILES) to copy beside them. Shared with the upgrade end-to-end test,
 * which builds a later version's CLI from patched sources with the same settings.
 */
export function cliBuildOptions(
  projectDir: string,
  outdir: string,
): BuildOptions & { metafile: true; write: false } {
  return {
    absWorkingDir: projectDir,
    entryPoints: { "goal-loops": path.join(projectDir, "bin", "goal-loops.ts") },
    outdir,
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    minify: true,
    metafile: true,
    write: false,
    logLevel: "warning",
  };
}

/** Chunks of an earlier build (their names carry content hashes) would otherwise ship too. */
function removeAllBut(dir: string, keep: readonly string[]): void {
  for (const file of readdirSync(dir)) {
    if (!keep.includes(path.join(dir, file))) rmSync(path.join(dir, file), { recursive: true, force: true });
  }
}
