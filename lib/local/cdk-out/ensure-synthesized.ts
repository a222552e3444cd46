import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import * as z from "zod";
import { LOCAL_SYNTH_CONTEXT } from "../../config/synth-target";
import { SynthError } from "../shared/errors";
import { changedAppSource, readCdkProject } from "./app-sources";
import { stackArtifacts } from "./cdk-out";

/** Runs the CDK CLI; replaced in tests. */
export type SynthCommand = (projectDir: string, args: readonly string[]) => Promise<void>;

export interface EnsureSynthesizedOptions {
  /** The CDK project: its cdk.json says what the app is and what it is made of. */
  readonly projectDir: string;
  /** @default cdk.json's `output`, else `<projectDir>/cdk.out` */
  readonly outDir?: string;
  /** @default console.log */
  readonly log?: (line: string) => void;
  /** @default the project's own CDK CLI (npm package aws-cdk), telemetry and notices off */
  readonly synth?: SynthCommand;
  /**
   * The configuration file to synthesize with (`cdk synth -c config=<file>`, `npm start --
   * --config <file>`). cdk.out built from another file, or from this one before it changed, is
   * synthesized again.
   * @default - `goal-loops.config.json` of the project, as `cdk synth` reads it
   */
  readonly configFile?: string;
  /**
   * The command that runs the CDK app (`goal-loops start --app '<command>'`), instead of cdk.json's
   * `app`. A cdk.out built by another command is synthesized again.
   * @default - cdk.json's `app`
   */
  readonly app?: string;
}

/**
 * Which configuration and app command a cdk.out was built from, kept beside it, and that it was
 * synthesized for the local runtime (`-c goal-loops:local=true`): a cdk.out `cdk synth` built is
 * the deployable one, pinned to the shell's account and region and refusing loopback URLs, and is
 * synthesized again. `cdk synth` into the same folder leaves the marker in place (the CLI writes its
 * files over the old ones and removes nothing), so the marker also holds the hash of the manifest it
 * was written beside: another manifest is another synth's.
 */
const CONFIG_MARKER = "goal-loops-config.json";
const MANIFEST_FILE = "manifest.json";
const ConfigMarkerSchema = z.object({
  file: z.string(),
  sha256: z.string(),
  local: z.literal(true),
  app: z.string().optional(),
  /** The SHA-256 of the manifest.json the local synth wrote. */
  manifest: z.string(),
});
type ConfigMarker = z.infer<typeof ConfigMarkerSchema>;

function sha256Of(file: string): string {
  return createHash("sha256").update(readFileSync(file)).digest("hex");
}

function configIdentity(file: string): Pick<ConfigMarker, "file" | "sha256"> {
  return { file, sha256: sha256Of(file) };
}

/**
 * Marks `outDir` as synthesized for the local runtime from `configFile` (the project's own: none)
 * by `app` (cdk.json's: none).
 */
export function writeLocalSynthMarker(outDir: string, configFile: string | undefined, app?: string): void {
  const marker: ConfigMarker = {
    ...(configFile === undefined ? { file: "", sha256: "" } : configIdentity(configFile)),
    local: true,
    ...(app === undefined ? {} : { app }),
    manifest: sha256Of(path.join(outDir, MANIFEST_FILE)),
  };
  writeFileSync(path.join(outDir, CONFIG_MARKER), JSON.stringify(marker));
}

/**
 * Synthesizes the app when cdk.out is missing or older (by mtime) than any file the app is made of
 * (cdk.json's `watch`: what `cdk watch` would react to) or the configuration, or was built from
 * another configuration file or app command, and says so; otherwise does nothing. Returns whether
 * it synthesized.
 */
export async function ensureSynthesized(options: EnsureSynthesizedOptions): Promise<boolean> {
  const { projectDir, log = console.log, synth = runCdk } = options;
  const project = readCdkProject(projectDir);
  const outDir = path.resolve(projectDir, options.outDir ?? project.outDir);
  const configFile = options.configFile === undefined ? undefined : path.resolve(options.configFile);
  if (configFile !== undefined && !existsSync(configFile)) {
    // `cdk synth -c config=a.json:b.json` makes a stack of each; the local stack runs one.
    const several = options.configFile?.includes(path.delimiter) === true;
    throw new SynthError(
      `${configFile}: no such configuration file${several ? " (the local stack runs one configuration: name one file)" : ""}`,
    );
  }
  if (options.app === undefined && project.app === undefined) {
    throw new SynthError(
      `No CDK app in ${projectDir} (no cdk.json with an "app"): run this in your CDK project, or pass --app <cdk.out folder | command>`,
    );
  }
  const reason = staleReason(projectDir, outDir) ?? markerChange(projectDir, outDir, configFile, options.app);
  if (reason === undefined) return false;
  log(`Synthesizing the CDK app into ${path.relative(projectDir, outDir) || outDir} (${reason})…`);
  const args = ["synth", "--quiet", "--no-notices", "--context", `${LOCAL_SYNTH_CONTEXT}=true`];
  if (outDir !== project.outDir) args.push("--output", outDir);
  if (configFile !== undefined) args.push("--context", `config=${configFile}`);
  if (options.app !== undefined) args.push("--app", options.app);
  await synth(projectDir, args);
  stackArtifacts(outDir);
  writeLocalSynthMarker(outDir, configFile, options.app);
  return true;
}

/**
 * Why cdk.out does not match what is asked for: built by `cdk synth` rather than for the local
 * runtime (no marker), a marker this code cannot read (an older goal-loops wrote it, or a crash cut
 * it short), built from another configuration file or by another app command, or from this file
 * before it changed.
 */
function markerChange(
  projectDir: string,
  outDir: string,
  configFile: string | undefined,
  app: string | undefined,
): string | undefined {
  const markerFile = path.join(outDir, CONFIG_MARKER);
  if (!existsSync(markerFile)) return "built by cdk synth, not for the local runtime";
  const built = readMarker(markerFile);
  if (built === undefined)
    return `its ${CONFIG_MARKER} is from an older goal-loops or was cut short, not for the local runtime`;
  if (built.manifest !== sha256Of(path.join(outDir, MANIFEST_FILE)))
    return "built by cdk synth since the last local synth, not for the local runtime";
  if (built.app !== app)
    return app === undefined ? "built by another app command" : `--app '${app}' asked for`;
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

/**
 * The marker beside cdk.out, or undefined when it is not one this code wrote: from before the
 * marker's current fields, or cut short by a crash while it was written (not JSON). Either way
 * cdk.out is synthesized again, which writes it anew.
 */
function readMarker(markerFile: string): ConfigMarker | undefined {
  try {
    const parsed = ConfigMarkerSchema.safeParse(JSON.parse(readFileSync(markerFile, "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

function staleReason(projectDir: string, outDir: string): string | undefined {
  const manifest = path.join(outDir, MANIFEST_FILE);
  if (!existsSync(manifest)) return "no cloud assembly yet";
  const synthesizedAt = statSync(manifest).mtimeMs;
  const projectConfig = path.join(projectDir, "goal-loops.config.json");
  if (existsSync(projectConfig) && statSync(projectConfig).mtimeMs > synthesizedAt) {
    return "goal-loops.config.json changed since the last synth";
  }
  const project = readCdkProject(projectDir);
  const outRelative = path.relative(projectDir, outDir).split(path.sep).join("/");
  const changed = changedAppSource(projectDir, project, synthesizedAt, [outRelative]);
  return changed === undefined ? undefined : `${changed} changed since the last synth`;
}

/**
 * The project's own CDK CLI (npm package aws-cdk, which every CDK project has), never `npx cdk`,
 * which would download one when it is missing.
 */
function cdkCli(projectDir: string): string {
  try {
    return createRequire(path.join(projectDir, "package.json")).resolve("aws-cdk/bin/cdk");
  } catch {
    throw new SynthError(
      `The CDK CLI is not installed in ${projectDir}: add it (npm install --save-dev aws-cdk), or pass --app <cdk.out folder>`,
    );
  }
}

const runCdk: SynthCommand = (projectDir, args) =>
  new Promise((resolve, reject) => {
    // The CLI otherwise phones home for telemetry and notices; locally there is nothing to reach.
    // CDK_VALIDATION=false skips aws-cdk-lib's built-in CloudFormation schema validation (a WASM
    // engine: about 4 of a synth's 10 s of CPU here): the local runtime never hands this template
    // to CloudFormation, and `cdk synth` or `cdk deploy` of the same app still validates it.
    // cdk-nag, a validation plugin of the app's own, still runs.
    const child = spawn(process.execPath, [cdkCli(projectDir), ...args], {
      cwd: projectDir,
      stdio: "inherit",
      env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: "true", CDK_VALIDATION: "false" },
    });
    child.once("error", (error) =>
      reject(new SynthError(`Could not run the CDK CLI: ${error.message}`, { cause: error })),
    );
    child.once("exit", (code, signal) => {
      if (code === 0) resolve();
      else reject(new SynthError(`cdk ${args.join(" ")} failed (exit code ${code ?? signal})`));
    });
  });
