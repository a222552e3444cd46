import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import * as z from "zod";
import { parseVersionDescription } from "../../../lambdas/core/goal/runs-on";
import { CloudAssemblyError, UnknownVersionError } from "../shared/errors";
import { selectStacks, stackArtifacts } from "./cdk-out";

/**
 * The deploys the local stack has run, kept in its state folder as AWS keeps published versions:
 * each new synth (a new deploy label) is a copy of cdk.out under `versions/<n>/`, numbered in the
 * order the stack first ran it. Goals started on version n keep running its definitions and bundles
 * after a restart on a newer cdk.out; `live` is the version new goals start on, per state machine
 * (what its `live` alias names): a new synth points it at itself, a rollback points it back.
 */
const KeptVersionsSchema = z.object({
  versions: z.array(
    z.object({
      number: z.number().int().positive(),
      /** The deploy's label (`0.1.0-3f2a9c1e`), from its state machine versions' description. */
      label: z.string(),
      schema: z.number().int().positive(),
      keptAt: z.string(),
    }),
  ),
  /** By state machine name: the version number its `live` alias names. */
  live: z.record(z.string(), z.number().int().positive()),
});
export type KeptVersions = z.infer<typeof KeptVersionsSchema>;
export type KeptVersion = KeptVersions["versions"][number];

const INDEX = "versions.json";

/** What a cloud assembly publishes: its deploy label and record schema, or undefined (no versions). */
export function publishedVersionOf(
  outDir: string,
  stack: string | undefined,
): { readonly label: string; readonly schema: number } | undefined {
  for (const artifact of selectStacks(stackArtifacts(outDir), stack)) {
    const template = JSON.parse(readFileSync(artifact.templateFile, "utf8")) as {
      Resources?: Record<string, { Type?: string; Properties?: { Description?: unknown } }>;
    };
    for (const resource of Object.values(template.Resources ?? {})) {
      if (resource.Type !== "AWS::StepFunctions::StateMachineVersion") continue;
      const description = resource.Properties?.Description;
      const parsed = parseVersionDescription(typeof description === "string" ? description : undefined);
      if (parsed !== undefined) return { label: parsed.version, schema: parsed.schema };
    }
  }
  return undefined;
}

/** Where kept version `number`'s copy of cdk.out is. */
export function keptAssemblyDir(stateDir: string, number: number): string {
  return path.join(stateDir, "versions", String(number));
}

export function readKeptVersions(stateDir: string): KeptVersions {
  const file = path.join(stateDir, "versions", INDEX);
  if (!existsSync(file)) return { versions: [], live: {} };
  const parsed = KeptVersionsSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) throw new CloudAssemblyError(`${file} is malformed: ${parsed.error.message}`);
  return parsed.data;
}

export function writeKeptVersions(stateDir: string, kept: KeptVersions): void {
  mkdirSync(path.join(stateDir, "versions"), { recursive: true });
  writeFileSync(path.join(stateDir, "versions", INDEX), `${JSON.stringify(kept, null, 2)}\n`);
}

/**
 * Keeps the assembly in `outDir` as a version when its label is new (a copy of its templates and
 * asset folders, so a later synth that overwrites cdk.out leaves it whole) and points every state
 * machine's `live` at it, as `cdk deploy` points the aliases at the versions it publishes. A label
 * kept already changes nothing: restarting on the same synth is no deploy (a rollback stays).
 * Returns the kept versions and the number of the assembly in `outDir`.
 */
export function keepVersion(
  stateDir: string,
  outDir: string,
  published: { readonly label: string; readonly schema: number },
  stateMachineNames: readonly string[],
  now: () => Date = () => new Date(),
): { readonly kept: KeptVersions; readonly current: number } {
  const kept = readKeptVersions(stateDir);
  const known = kept.versions.find((version) => version.label === published.label);
  if (known !== undefined) return { kept, current: known.number };
  const number = Math.max(0, ...kept.versions.map((version) => version.number)) + 1;
  const target = keptAssemblyDir(stateDir, number);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  // The manifest, templates and asset folders; nested assemblies (another config's synth) stay out.
  for (const entry of readdirSync(outDir, { withFileTypes: true })) {
    if (entry.isDirectory() && !entry.name.startsWith("asset.")) continue;
    cpSync(path.join(outDir, entry.name), path.join(target, entry.name), { recursive: true });
  }
  linkModules(path.dirname(target), outDir);
  const next: KeptVersions = {
    versions: [...kept.versions, { number, ...published, keptAt: now().toISOString() }],
    live: { ...kept.live, ...Object.fromEntries(stateMachineNames.map((name) => [name, number])) },
  };
  writeKeptVersions(stateDir, next);
  return { kept: next, current: number };
}

/**
 * Points every state machine's `live` back (`npm start -- --rollback [--to N]`): at version `to`,
 * else at the newest kept version older than the one it names now. Returns the version chosen.
 */
export function rollBack(stateDir: string, stateMachineNames: readonly string[], to?: number): number {
  const kept = readKeptVersions(stateDir);
  const numbers = kept.versions.map((version) => version.number).sort((a, b) => a - b);
  const current = Math.max(0, ...stateMachineNames.map((name) => kept.live[name] ?? 0));
  const target = to ?? numbers.filter((number) => number < current).at(-1);
  if (target === undefined || !numbers.includes(target)) {
    throw new UnknownVersionError(
      to === undefined
        ? `No version older than ${current} is kept to roll back to (kept: ${numbers.join(", ") || "none"})`
        : `Version ${to} is not kept in ${stateDir} (kept: ${numbers.join(", ") || "none"})`,
    );
  }
  writeKeptVersions(stateDir, {
    ...kept,
    live: { ...kept.live, ...Object.fromEntries(stateMachineNames.map((name) => [name, target])) },
  });
  return target;
}

/** The nearest `node_modules` folder at or above `dir`. */
function nearestModules(dir: string): string | undefined {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const candidate = path.join(at, "node_modules");
    if (existsSync(candidate)) return candidate;
    if (path.dirname(at) === at) return undefined;
  }
}

/**
 * The bundles' externals (`@aws-sdk/*`, which Lambda's runtime provides) resolve by walking up from
 * the asset folder: a state folder outside the project gets a link to the node_modules the synth's
 * own bundles resolve from, so a kept copy loads as the original does.
 */
function linkModules(versionsDir: string, outDir: string): void {
  const wanted = nearestModules(outDir);
  if (wanted === undefined || nearestModules(versionsDir) === wanted) return;
  const link = path.join(versionsDir, "node_modules");
  if (!existsSync(link)) symlinkSync(wanted, link, "dir");
}
