import { resolve } from "node:path";
import { ensureSynthesized } from "../../lib/local/cdk-out";

/**
 * Synthesizes cdk.out once before any test file runs, so the end-to-end files that start the local
 * stack read the same fresh assembly instead of racing to write it.
 */
export default async function setup(): Promise<void> {
  const projectDir = resolve(import.meta.dirname, "../..");
  await ensureSynthesized({ projectDir, outDir: resolve(projectDir, "cdk.out"), log: () => undefined });
}
