import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as z from "zod";
import { LOCAL_SYNTH_CONTEXT } from "../../config/synth-target";
import type { CloudAssemblyModel } from "../shared/cloud-assembly-model";
import { CloudAssemblyError, SynthError } from "../shared/errors";
import { readApiRoutes } from "./read-api-routes";
import { readBuckets } from "./read-buckets";
import { readEventBuses, readEventRules } from "./read-event-rules";
import { readFunctions } from "./read-functions";
import { readStateMachines } from "./read-state-machines";
import { readTables } from "./read-tables";
import { readStackTemplate } from "./stack-template";

const ManifestSchema = z.looseObject({
  artifacts: z.record(
    z.string(),
    z.looseObject({
      type: z.string(),
      properties: z
        .looseObject({ templateFile: z.string().optional(), stackName: z.string().optional() })
        .optional(),
    }),
  ),
});

/** Folders whose sources the synthesized app is made of (the CDK app, constructs, Lambda code). */
const SOURCE_DIRS = ["bin", "lib", "lambdas"];
/** The local runtime and its entry live under those folders but are not part of the app. */
const NOT_APP_SOURCES = [path.join("lib", "local"), path.join("bin", "local.ts")];

export interface StackArtifact {
  readonly stackName: string;
  readonly templateFile: string;
}

/** The stacks of a cloud assembly, checked: cdk.out/manifest.json exists and names at least one template. */
export function stackArtifacts(outDir: string): StackArtifact[] {
  const manifestFile = path.join(outDir, "manifest.json");
  if (!existsSync(manifestFile)) {
    throw new CloudAssemblyError(
      `${outDir} is not a cloud assembly (no manifest.json): run npx cdk synth first`,
    );
  }
  const parsed = ManifestSchema.safeParse(JSON.parse(readFileSync(manifestFile, "utf8")));
  if (!parsed.success) throw new CloudAssemblyError(`${manifestFile} is malformed: ${parsed.error.message}`);
  const stacks = Object.entries(parsed.data.artifacts).flatMap(([artifactId, artifact]) => {
    const templateFile = artifact.properties?.templateFile;
    if (artifact.type !== "aws:cloudformation:stack" || templateFile === undefined) return [];
    return [
      {
        stackName: artifact.properties?.stackName ?? artifactId,
        templateFile: path.join(outDir, templateFile),
      },
    ];
  });
  if (stacks.length === 0) throw new CloudAssemblyError(`${manifestFile} names no CloudFormation stack`);
  for (const stack of stacks) {
    if (!existsSync(stack.templateFile)) {
      throw new CloudAssemblyError(`${stack.templateFile} is missing: synthesize again (npx cdk synth)`);
    }
  }
  return stacks;
}

/** Reads every stack of `outDir` into the local model. */
export function loadCloudAssembly(outDir: string): CloudAssemblyModel {
  const absolute = path.resolve(outDir);
  const stacks = stackArtifacts(absolute).map((a) => readStackTemplate(a.stackName, a.templateFile));
  return {
    outDir: absolute,
    stackNames: stacks.map((s) => s.stackName),
    functions: stacks.flatMap((s) => readFunctions(s, absolute)),
    stateMachines: stacks.flatMap(readStateMachines),
    tables: stacks.flatMap(readTables),
    buckets: stacks.flatMap(readBuckets),
    eventBuses: stacks.flatMap(readEventBuses),
    eventRules: stacks.flatMap(readEventRules),
    apiRoutes: stacks.flatMap(readApiRoutes),
  };
}

/** Runs the CDK CLI; replaced in tests. */
export type SynthCommand = (projectDir: string, args: readonly string[]) => Promise<void>;

export interface EnsureSynthesizedOptions {
  readonly projectDir: string;
  /** @default `<projectDir>/cdk.out` */
  readonly outDir?: string;
  /** @default console.log */
  readonly log?: (line: string) => void;
  /** @default `npx cdk …` with telemetry and notices off */
  readonly synth?: SynthCommand;
  /**
   * The configuration file to synthesize with (`cdk synth -c config=<file>`, `npm start --
   * --config <file>`). cdk.out built from another file, or from this one before it changed, is
   * synthesized again.
   * @default - `goal-loops.config.json` of the project, as `cdk synth` reads it
   */
  readonly configFile?: string;
}

/**
 * Which configuration a cdk.out was built from, kept beside it, and that it was synthesized for the
 * local runtime (`-c goal-loops:local=true`): a cdk.out `cdk synth` built is the deployable one,
 * pinned to the shell's account and region and refusing loopback URLs, and is synthesized again.
 */
const CONFIG_MARKER = "goal-loops-config.json";
const ConfigMarkerSchema = z.object({ file: z.string(), sha256: z.string(), local: z.literal(true) });
type ConfigMarker = z.infer<typeof ConfigMarkerSchema>;

function configIdentity(file: string): ConfigMarker {
  return { file, sha256: createHash("sha256").update(readFileSync(file)).digest("hex"), local: true };
}

/** Marks `outDir` as synthesized for the local runtime from `configFile` (the project's own: none). */
export function writeLocalSynthMarker(outDir: string, configFile: string | undefined): void {
  const marker: ConfigMarker =
    configFile === undefined ? { file: "", sha256: "", local: true } : configIdentity(configFile);
  writeFileSync(path.join(outDir, CONFIG_MARKER), JSON.stringify(marker));
}

/**
 * Synthesizes the app when cdk.out is missing or older (by mtime) than any source under bin/,
 * lib/ or lambdas/ or the configuration, or was built from another configuration file, and says
 * so; otherwise does nothing. Returns whether it synthesized.
 */
export async function ensureSynthesized(options: EnsureSynthesizedOptions): Promise<boolean> {
  const { projectDir, log = console.log, synth = runCdk } = options;
  const outDir = path.resolve(projectDir, options.outDir ?? "cdk.out");
  const configFile = options.configFile === undefined ? undefined : path.resolve(options.configFile);
  if (configFile !== undefined && !existsSync(configFile)) {
    throw new SynthError(`${configFile}: no such configuration file`);
  }
  const reason = staleReason(projectDir, outDir) ?? configChange(projectDir, outDir, configFile);
  if (reason === undefined) return false;
  log(`Synthesizing the CDK app into ${path.relative(projectDir, outDir) || outDir} (${reason})…`);
  const args = ["synth", "--quiet", "--no-notices", "--context", `${LOCAL_SYNTH_CONTEXT}=true`];
  if (outDir !== path.resolve(projectDir, "cdk.out")) args.push("--output", outDir);
  if (configFile !== undefined) args.push("--context", `config=${configFile}`);
  await synth(projectDir, args);
  stackArtifacts(outDir);
  writeLocalSynthMarker(outDir, configFile);
  return true;
}

/**
 * Why cdk.out does not match the configuration asked for: built by `cdk synth` rather than for the
 * local runtime (no marker, or one from before the marker said so), built from another file, or
 * from this one before it changed.
 */
function configChange(
  projectDir: string,
  outDir: string,
  configFile: string | undefined,
): string | undefined {
  const markerFile = path.join(outDir, CONFIG_MARKER);
  const parsed = existsSync(markerFile)
    ? ConfigMarkerSchema.safeParse(JSON.parse(readFileSync(markerFile, "utf8")))
    : undefined;
  if (parsed?.success !== true) return "built by cdk synth, not for the local runtime";
  const built = parsed.data;
  if (configFile === undefined) {
    return built.file === ""
      ? undefined
      : `built from ${path.relative(projectDir, built.file)}, not the project's configuration`;
  }
  const wanted = configIdentity(configFile);
  if (built.file !== wanted.file) return `configuration ${path.relative(projectDir, configFile)} asked for`;
  return built.sha256 === wanted.sha256
    ? undefined
    : `${path.relative(projectDir, configFile)} changed since the last synth`;
}

function staleReason(projectDir: string, outDir: string): string | undefined {
  const manifest = path.join(outDir, "manifest.json");
  if (!existsSync(manifest)) return "no cloud assembly yet";
  const synthesizedAt = statSync(manifest).mtimeMs;
  const ignored = NOT_APP_SOURCES.map((p) => path.join(projectDir, p));
  const projectConfig = path.join(projectDir, "goal-loops.config.json");
  if (existsSync(projectConfig) && statSync(projectConfig).mtimeMs > synthesizedAt) {
    return "goal-loops.config.json changed since the last synth";
  }
  for (const dir of SOURCE_DIRS) {
    const newer = findNewerFile(path.join(projectDir, dir), synthesizedAt, ignored);
    if (newer !== undefined) return `${path.relative(projectDir, newer)} changed since the last synth`;
  }
  return undefined;
}

function findNewerFile(dir: string, than: number, ignored: readonly string[]): string | undefined {
  if (!existsSync(dir)) return undefined;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (ignored.includes(full) || entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    if (entry.isDirectory()) {
      const newer = findNewerFile(full, than, ignored);
      if (newer !== undefined) return newer;
    } else if (entry.isFile() && statSync(full).mtimeMs > than) {
      return full;
    }
  }
  return undefined;
}

const runCdk: SynthCommand = (projectDir, args) =>
  new Promise((resolve, reject) => {
    // The CLI otherwise phones home for telemetry and notices; locally there is nothing to reach.
    const child = spawn("npx", ["cdk", ...args], {
      cwd: projectDir,
      stdio: "inherit",
      env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: "true" },
    });
    child.once("error", (error) =>
      reject(new SynthError(`Could not run npx cdk: ${error.message}`, { cause: error })),
    );
    child.once("exit", (code, signal) => {
      if (code === 0) resolve();
      else reject(new SynthError(`npx cdk ${args.join(" ")} failed (exit code ${code ?? signal})`));
    });
  });
