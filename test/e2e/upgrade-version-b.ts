import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { build, type Plugin } from "esbuild";
import { RECORD_SCHEMA } from "../../lambdas/core/goal/record-schema";
import { versionDescription } from "../../lambdas/core/goal/runs-on";
import { CLI_WORKER_FILES, cliBuildOptions } from "../../lib/build/build-cli";
import { handlerBuildOptions } from "../../lib/build/build-handlers";
import {
  HANDLER_BUNDLE_FILE,
  HANDLER_BUNDLES,
  type HandlerBundleName,
} from "../../lib/constructs/handler-bundles";

/**
 * Version B of the upgrade end-to-end test: what a developer changes between two deploys, built the
 * way a deploy builds it. Each patch replaces one exact text of one source file (it throws when the
 * text is not there exactly once, so a refactor of the source cannot leave B silently equal to A);
 * the handler bundles and the CLI (the local runtime) are then bundled from the patched sources with
 * the build's own esbuild settings (lib/build), and the handler bundles go into a copy of version A's
 * cloud assembly, in place of the asset each one was.
 */

/** The sentence of the reason prompt version B changes, and what B says instead. */
export const OLD_PROMPT = "You are an agent working toward the goal below, one step at a time.";
export const NEW_PROMPT =
  "You are an agent working toward the goal below, one careful step at a time (version B).";
/** The field version B's goal records gain, what B writes in it, and what its migration gives older records. */
export const GAINED_FIELD = "releaseTrack";
export const GAINED_VALUE = "b";
export const MIGRATED_VALUE = "stable";
/** Version B's record schema: one above A's (this checkout's). */
export const SCHEMA_B = RECORD_SCHEMA + 1;

interface SourcePatch {
  readonly file: string;
  readonly from: string;
  readonly to: string;
}

const PATCHES: readonly SourcePatch[] = [
  // A prompt's text.
  { file: "lambdas/core/patterns/react/reason-prompt.ts", from: OLD_PROMPT, to: NEW_PROMPT },
  // A tool's result shape: locally recorded `notify` says `recordedAt` where A said `createdAt`.
  {
    file: "lambdas/tools/notify.ts",
    from: "return { value: { messageId: message.messageId, channel: message.channel, createdAt: message.createdAt } };",
    to: "return { value: { messageId: message.messageId, channel: message.channel, recordedAt: message.createdAt } };",
  },
  // A field the goal record gains: a new record schema, its zod field, a writer, and the migration.
  {
    file: "lambdas/core/goal/record-schema.ts",
    from: `export const RECORD_SCHEMA = ${RECORD_SCHEMA};`,
    to: `export const RECORD_SCHEMA = ${SCHEMA_B};`,
  },
  {
    file: "lambdas/core/goal/goal-record.ts",
    from: "  runsOn: z.optional(RunsOnSchema),\n",
    to: `  runsOn: z.optional(RunsOnSchema),\n  ${GAINED_FIELD}: z.optional(z.string()),\n`,
  },
  {
    file: "lambdas/core/goal/create-goal.ts",
    from: "    ...runsOnFields(input.target),\n",
    to: `    ...runsOnFields(input.target),\n    ${GAINED_FIELD}: "${GAINED_VALUE}",\n`,
  },
  {
    file: "lambdas/core/goal/record-migrations.ts",
    from: "export function schemaMigrations(",
    to: `/** Version B: goal records gain \`${GAINED_FIELD}\` (older ones are "${MIGRATED_VALUE}"); the other kinds keep their shape. */
const goalRecordGainsField: SchemaMigration = {
  up: (document) => (isObject(document) ? { ${GAINED_FIELD}: "${MIGRATED_VALUE}", ...document } : document),
  down: (document) => without(document, "${GAINED_FIELD}"),
};
const stepStateFollows: SchemaMigration = {
  up: (document, storedSchema) =>
    isObject(document) ? { ...document, format: ${SCHEMA_B}, record: goalRecordGainsField.up(document.record, storedSchema) } : document,
  down: (document) =>
    isObject(document) ? { ...document, format: ${RECORD_SCHEMA}, record: goalRecordGainsField.down(document.record) } : document,
};
(MIGRATIONS.goal as Record<number, SchemaMigration>)[${RECORD_SCHEMA}] = goalRecordGainsField;
(MIGRATIONS.step as Record<number, SchemaMigration>)[${RECORD_SCHEMA}] = unchanged;
(MIGRATIONS.checkpoint as Record<number, SchemaMigration>)[${RECORD_SCHEMA}] = unchanged;
(MIGRATIONS.stepState as Record<number, SchemaMigration>)[${RECORD_SCHEMA}] = stepStateFollows;

export function schemaMigrations(`,
  },
];

/** An esbuild plugin that serves the patched text of every file PATCHES names. */
function patchSources(projectDir: string, used: Set<string>): Plugin {
  const patched = new Map<string, string>();
  for (const patch of PATCHES) {
    const file = join(projectDir, patch.file);
    const text = patched.get(file) ?? readFileSync(file, "utf8");
    const found = text.split(patch.from).length - 1;
    if (found !== 1)
      throw new Error(`version B: ${patch.file} has ${found} copies of ${JSON.stringify(patch.from)}, not 1`);
    patched.set(file, text.replace(patch.from, patch.to));
  }
  return {
    name: "version-b-patches",
    setup(builder) {
      builder.onLoad({ filter: /\.ts$/ }, (args) => {
        const contents = patched.get(args.path);
        if (contents === undefined) return undefined;
        used.add(relative(projectDir, args.path));
        return { contents, loader: "ts" };
      });
    },
  };
}

/**
 * Builds version B inside `assemblyA` (a cloud assembly's folder, where the bundles' externals
 * resolve from the project's node_modules): a copy of A's templates with B's deploy label and record
 * schema in its state machine versions' descriptions, each handler asset rebuilt from the patched
 * sources, and B's CLI. Returns B's cloud assembly folder and the script that runs B's CLI.
 */
export async function buildVersionB(
  projectDir: string,
  assemblyA: string,
  labels: { readonly a: string; readonly b: string },
): Promise<{ readonly assemblyDir: string; readonly cli: string }> {
  const root = mkdtempSync(join(assemblyA, "e2e-upgrade-"));
  const assemblyDir = join(root, "cdk.out");
  mkdirSync(assemblyDir);
  // The manifest, templates and asset folders; nested assemblies (another synth, an earlier B) stay out.
  for (const entry of readdirSync(assemblyA, { withFileTypes: true })) {
    if (entry.isDirectory() && !entry.name.startsWith("asset.")) continue;
    cpSync(join(assemblyA, entry.name), join(assemblyDir, entry.name), { recursive: true });
  }
  // What a synth of B's sources publishes: its label, and the record schema its code reads.
  for (const file of readdirSync(assemblyDir).filter((name) => name.endsWith(".template.json"))) {
    const path = join(assemblyDir, file);
    const text = readFileSync(path, "utf8");
    writeFileSync(
      path,
      text
        .replaceAll(labels.a, labels.b)
        .replaceAll(versionDescription(labels.b, RECORD_SCHEMA), versionDescription(labels.b, SCHEMA_B)),
    );
  }
  const used = new Set<string>();
  const plugin = patchSources(projectDir, used);
  const bundles = bundleNamesByContent(projectDir);
  const rebuilt: Promise<void>[] = [];
  for (const entry of readdirSync(assemblyDir).filter((name) => name.startsWith("asset."))) {
    const outfile = join(assemblyDir, entry, HANDLER_BUNDLE_FILE);
    const name = bundles.get(safeRead(outfile) ?? "");
    if (name === undefined) continue;
    const options = handlerBuildOptions(projectDir, name, outfile);
    rebuilt.push(
      build({ ...options, plugins: [...(options.plugins ?? []), plugin] }).then((result) => {
        const [output] = result.outputFiles;
        if (output === undefined) throw new Error(`version B: esbuild wrote no bundle of ${name}`);
        writeFileSync(outfile, output.contents);
      }),
    );
  }
  if (rebuilt.length === 0) throw new Error(`version B: no asset of ${assemblyA} is a handler bundle`);
  // B's local runtime: the CLI's chunks and the worker files it loads beside them.
  const cliDir = join(root, "cli");
  rebuilt.push(
    build({ ...cliBuildOptions(projectDir, cliDir), plugins: [plugin] }).then((result) => {
      for (const output of result.outputFiles) {
        mkdirSync(dirname(output.path), { recursive: true });
        writeFileSync(output.path, output.contents);
      }
      for (const file of CLI_WORKER_FILES) cpSync(join(projectDir, file), join(cliDir, basename(file)));
    }),
  );
  await Promise.all(rebuilt);
  const unused = PATCHES.filter((patch) => !used.has(patch.file));
  if (unused.length > 0)
    throw new Error(`version B: no bundle imports ${unused.map((p) => p.file).join(", ")}`);
  return { assemblyDir, cli: join(cliDir, "goal-loops.js") };
}

/** Each pre-built handler bundle's text → its name (an asset of a synth is a copy of one). */
function bundleNamesByContent(projectDir: string): Map<string, HandlerBundleName> {
  const names = new Map<string, HandlerBundleName>();
  for (const name of Object.keys(HANDLER_BUNDLES) as HandlerBundleName[]) {
    const text = safeRead(join(projectDir, "dist", "lambdas", name, HANDLER_BUNDLE_FILE));
    if (text !== undefined) names.set(text, name);
  }
  return names;
}

function safeRead(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
