import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildCli } from "../../lib/build/build-cli";
import { buildHandlerBundles } from "../../lib/build/build-handlers";
import { ensureSynthesized } from "../../lib/local/cdk-out/ensure-synthesized";
import { E2E_ASSEMBLY_DIR, E2E_CONFIG } from "./local-stack-harness";

/**
 * Builds what the package ships (each part only when one of its sources is newer than its build),
 * then synthesizes cdk.out once before any test file runs, so the end-to-end files that start the
 * local stack read the same fresh assembly instead of racing to write it; and the one of the shared
 * end-to-end configuration (see E2E_CONFIG) beside it, at the same time (both take about 40 s on
 * 2 cores, one after the other about 52 s). The handler bundles come first: every synth, and every
 * construct test, deploys them. The CLI and the console build meanwhile: the CLI tests run the
 * compiled CLI. The library (dist/index.js and its declarations, about 28 s of one core for the
 * declarations) is not built here: only the package test uses it, and its `npm pack` runs
 * `prepack`, which builds it then, beside the other files, rather than before any file starts.
 */
export default async function setup(): Promise<() => void> {
  const removeRunTemp = runTempDir();
  const projectDir = resolve(import.meta.dirname, "../..");
  const log = () => undefined;
  await buildHandlerBundles({ projectDir, log });
  await Promise.all([
    buildCli({ projectDir, log }),
    ensureSynthesized({ projectDir, outDir: resolve(projectDir, "cdk.out"), log }),
    ensureSynthesized({ projectDir, outDir: E2E_ASSEMBLY_DIR, configFile: E2E_CONFIG, log }),
  ]);
  return removeRunTemp;
}

/**
 * Points the run's temporary files into one folder of their own, removed when the run ends. Every
 * `App` a test synthesizes without an outdir writes its assembly to a fresh `cdk.out*` folder in the
 * system's temp folder and never removes it (aws-cdk-lib's App): about 400 MB for the CDK files
 * alone, every run. The test forks start after this and inherit TMPDIR, so `os.tmpdir()` in them,
 * and in the processes they spawn, is this folder.
 */
function runTempDir(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "goal-loops-test-run-"));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(dir, { recursive: true, force: true });
  };
}
