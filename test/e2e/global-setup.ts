import { resolve } from "node:path";
import { ensureSynthesized } from "../../lib/local/cdk-out/cdk-out";
import { E2E_ASSEMBLY_DIR, E2E_CONFIG } from "./local-stack-harness";

/**
 * Synthesizes cdk.out once before any test file runs, so the end-to-end files that start the local
 * stack read the same fresh assembly instead of racing to write it; and the one of the shared
 * end-to-end configuration (see E2E_CONFIG) beside it, at the same time (both take about 40 s on
 * 2 cores, one after the other about 52 s).
 */
export default async function setup(): Promise<void> {
  const projectDir = resolve(import.meta.dirname, "../..");
  await Promise.all([
    ensureSynthesized({ projectDir, outDir: resolve(projectDir, "cdk.out"), log: () => undefined }),
    ensureSynthesized({ projectDir, outDir: E2E_ASSEMBLY_DIR, configFile: E2E_CONFIG, log: () => undefined }),
  ]);
}
