import path from "node:path";
import { type BuildOptions, build, type Plugin } from "esbuild";
import {
  BUNDLE_EXTERNALS,
  BUNDLE_MAIN_FIELDS,
  BUNDLE_TARGET,
  ESM_REQUIRE_BANNER,
  sdkRequireAliases,
} from "../constructs/bundle-options";
import {
  HANDLER_BUNDLE_FILE,
  HANDLER_BUNDLES,
  type HandlerBundleName,
  handlerBundleDir,
} from "../constructs/handler-bundles";
import { BUILD_TOOLING, projectPaths, staleReason, writeAtomically, writeBuildRecord } from "./build-record";

export interface BuildHandlersOptions {
  /** The clone's root (where lambdas/ and dist/ are). */
  readonly projectDir: string;
  /** Rebuild even when fresh. @default false */
  readonly force?: boolean;
  /** @default console.log */
  readonly log?: (line: string) => void;
}

const recordFile = (projectDir: string, name: string) =>
  path.join(projectDir, "dist", "build", "lambdas", `${name}.json`);

/**
 * Bundles every handler of HANDLER_BUNDLES that is missing or older than one of its inputs (the
 * files its last metafile lists, and the build's own settings) into `dist/lambdas/<name>/index.mjs`,
 * one bundle per function, with its esbuild metafile in `dist/build/lambdas/<name>.meta.json`.
 * Returns the names it built.
 */
export async function buildHandlerBundles(options: BuildHandlersOptions): Promise<HandlerBundleName[]> {
  const { projectDir, force = false, log = console.log } = options;
  const names = Object.keys(HANDLER_BUNDLES) as HandlerBundleName[];
  const stale = names.flatMap((name) => {
    const reason = force ? "forced" : staleReason(projectDir, recordFile(projectDir, name));
    return reason === undefined ? [] : [{ name, reason }];
  });
  if (stale.length === 0) return [];
  const first = stale[0];
  log(
    `Bundling ${stale.length} Lambda handler(s) into dist/lambdas (${first?.name}: ${first?.reason}${stale.length > 1 ? ", …" : ""})`,
  );
  const aliases = sdkRequireAliases();
  await Promise.all(stale.map(({ name }) => buildOne(projectDir, name, aliases)));
  return stale.map(({ name }) => name);
}

async function buildOne(
  projectDir: string,
  name: HandlerBundleName,
  aliases: Record<string, string>,
): Promise<void> {
  const builtAt = Date.now();
  const outfile = path.join(handlerBundleDir(name), HANDLER_BUNDLE_FILE);
  const result = await build(handlerBuildOptions(projectDir, name, outfile, aliases));
  const [output] = result.outputFiles;
  if (output === undefined || result.outputFiles.length !== 1) {
    throw new Error(
      `esbuild wrote ${result.outputFiles.length} files for ${name}; a Lambda bundle is one file`,
    );
  }
  // Replaced in place (esbuild writes no other file): a synth running meanwhile hashes a whole bundle.
  writeAtomically(outfile, output.contents);
  const metafileName = path.join(projectDir, "dist", "build", "lambdas", `${name}.meta.json`);
  writeAtomically(metafileName, JSON.stringify(result.metafile));
  writeBuildRecord(recordFile(projectDir, name), {
    builtAt,
    inputs: [...projectPaths(projectDir, Object.keys(result.metafile.inputs)), ...BUILD_TOOLING],
    outputs: projectPaths(projectDir, [outfile]),
  });
}

/**
 * @middy/core imports `ReadableStream` from `node:stream/web` at module scope, for one `instanceof`
 * check when a handler streams its response (none of goal-loops' middy handlers does). As an ES
 * module import it loads Node's WHATWG streams at every cold start, about 7 % of a step's import
 * here (paired runs, LoadGoal). This resolves that one import, from middy alone, to a class whose
 * `instanceof` asks Node's own `ReadableStream` when it is first used
 * (lib/build/shims/readable-stream-instanceof.mjs); every other import of `node:stream/web` is
 * left as it is.
 */
function middyStreamWebOnFirstUse(projectDir: string): Plugin {
  const shim = path.join(projectDir, "lib", "build", "shims", "readable-stream-instanceof.mjs");
  return {
    name: "middy-stream-web-on-first-use",
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /^node:stream\/web$/ }, (args) =>
        /[\\/]node_modules[\\/]@middy[\\/]core[\\/]/.test(args.importer) ? { path: shim } : undefined,
      );
    },
  };
}

/**
 * The esbuild options of one handler's bundle, written to `outfile` (in memory: `write: false`).
 * Shared with the upgrade end-to-end test, which builds a later version's bundles from patched
 * sources with the same settings.
 */
export function handlerBuildOptions(
  projectDir: string,
  name: HandlerBundleName,
  outfile: string,
  aliases: Record<string, string> = sdkRequireAliases(),
): BuildOptions & { metafile: true; write: false } {
  return {
    absWorkingDir: projectDir,
    entryPoints: [path.join(projectDir, "lambdas", "handlers", HANDLER_BUNDLES[name])],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: BUNDLE_TARGET,
    mainFields: [...BUNDLE_MAIN_FIELDS],
    banner: { js: ESM_REQUIRE_BANNER },
    minify: true,
    sourcemap: false,
    external: [...BUNDLE_EXTERNALS],
    alias: aliases,
    plugins: [middyStreamWebOnFirstUse(projectDir)],
    metafile: true,
    write: false,
    logLevel: "warning",
  };
}
