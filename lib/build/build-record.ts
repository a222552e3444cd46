import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as z from "zod";

/**
 * What one build step made and from what, kept beside the build output (`dist/build/*.json`): the
 * time it started, the files it read (esbuild's metafile inputs, the declarations' sources) and the
 * files it wrote. A step is fresh while every output exists and no input changed since it started;
 * in a clone that is how a synth, the tests and the CLI shim know whether to build again.
 * bin/goal-loops.mjs reads the CLI's record with the same rule, in plain JavaScript.
 */
export const BuildRecordSchema = z.object({
  builtAt: z.number(),
  inputs: z.array(z.string()),
  outputs: z.array(z.string()),
});
export type BuildRecord = z.infer<typeof BuildRecordSchema>;

/**
 * Files every build step depends on besides what it bundles: the build's own code and settings.
 * A change to them rebuilds everything.
 */
export const BUILD_TOOLING = [
  "lib/build/build-record.ts",
  "lib/build/build-handlers.ts",
  "lib/build/build-library.ts",
  "lib/build/build-cli.ts",
  "lib/constructs/bundle-options.ts",
  "lib/constructs/handler-bundles.ts",
  "package.json",
  // Declares the handlers' own modules free of import side effects (esbuild drops unused ones).
  "lambdas/package.json",
] as const;

/** Why the step recorded in `recordFile` must run again, or undefined when it is fresh. */
export function staleReason(projectDir: string, recordFile: string): string | undefined {
  if (!existsSync(recordFile)) return "never built";
  const parsed = BuildRecordSchema.safeParse(JSON.parse(readFileSync(recordFile, "utf8")));
  if (!parsed.success) return "its build record is unreadable";
  const { builtAt, inputs, outputs } = parsed.data;
  const missing = outputs.find((file) => !existsSync(path.join(projectDir, file)));
  if (missing !== undefined) return `${missing} is missing`;
  for (const input of inputs) {
    const file = path.join(projectDir, input);
    if (!existsSync(file)) return `${input} is gone`;
    if (statSync(file).mtimeMs > builtAt) return `${input} changed`;
  }
  return undefined;
}

/** Writes the record last, once every output is in place. */
export function writeBuildRecord(recordFile: string, record: BuildRecord): void {
  writeAtomically(recordFile, `${JSON.stringify(record, null, 1)}\n`);
}

/**
 * Writes through a temporary file and a rename, so a synth or a CLI start running meanwhile (the
 * tests start several) reads either the old file or the new one, never half of one.
 */
export function writeAtomically(file: string, contents: string | Uint8Array): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, file);
}

/**
 * Project-relative paths, `/`-separated, of the files esbuild or tsc reported (absolute or relative
 * to the project). esbuild's virtual inputs (`<define:…>`) are no files and are left out.
 */
export function projectPaths(projectDir: string, files: Iterable<string>): string[] {
  const relative = [...files]
    .map((file) => path.resolve(projectDir, file))
    .filter((file) => existsSync(file))
    .map((file) => path.relative(projectDir, file).split(path.sep).join("/"));
  return [...new Set(relative)].sort();
}
