import { existsSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import type ts from "typescript";
import { BUILD_TOOLING, projectPaths, staleReason, writeAtomically, writeBuildRecord } from "./build-record";
import { OPENAPI_FILE, openApiDocumentText } from "./openapi-file";

export interface BuildLibraryOptions {
  readonly projectDir: string;
  /** Rebuild even when fresh. @default false */
  readonly force?: boolean;
  /** @default console.log */
  readonly log?: (line: string) => void;
}

/** The construct library's entry: what `import { GoalLoops } from "goal-loops"` loads. */
export const LIBRARY_ENTRY = "lib/index.ts";
/** Where its declarations go: `dist/types/` mirrors the sources (`dist/types/lib/index.d.ts`). */
export const TYPES_DIR = "dist/types";

/**
 * The construct library as the package ships it: `dist/index.js`, one ES module bundled from
 * lib/index.ts with every package left external (they are the package's dependencies and peers),
 * and `.d.ts` files for its whole public surface, emitted by the TypeScript compiler. Returns
 * whether it built.
 */
export async function buildLibrary(options: BuildLibraryOptions): Promise<boolean> {
  const { projectDir, force = false, log = console.log } = options;
  const record = path.join(projectDir, "dist", "build", "library.json");
  const reason = force ? "forced" : staleReason(projectDir, record);
  if (reason === undefined) return false;
  log(`Building the construct library into dist/index.js and ${TYPES_DIR} (${reason})`);
  const builtAt = Date.now();
  const outfile = path.join(projectDir, "dist", "index.js");
  const result = await build({
    absWorkingDir: projectDir,
    entryPoints: [path.join(projectDir, LIBRARY_ENTRY)],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    metafile: true,
    write: false,
    logLevel: "warning",
  });
  for (const output of result.outputFiles) writeAtomically(output.path, output.contents);
  // The API's OpenAPI document beside the library that holds its client: `goal-loops/openapi.json`.
  const openApiFile = path.join(projectDir, OPENAPI_FILE);
  writeAtomically(openApiFile, openApiDocumentText());
  const metafile = path.join(projectDir, "dist", "build", "library.meta.json");
  writeAtomically(metafile, JSON.stringify(result.metafile));
  const declarations = await emitDeclarations(projectDir);
  writeBuildRecord(record, {
    builtAt,
    inputs: [
      ...new Set([
        ...projectPaths(projectDir, Object.keys(result.metafile.inputs)),
        ...declarations.sources,
        ...BUILD_TOOLING,
      ]),
    ],
    outputs: projectPaths(projectDir, [outfile, openApiFile, ...declarations.outputs]),
  });
  return true;
}

/** Thrown when the compiler refuses to emit the declarations (a type error in the library). */
export class DeclarationError extends Error {
  override readonly name = "DeclarationError";
}

/**
 * `.d.ts` for LIBRARY_ENTRY and everything it reaches, with the project's own compiler options. The
 * sources import each other without extensions (`moduleResolution: bundler`), which a consumer's
 * `node16`/`nodenext` resolution refuses in a declaration file; so each relative specifier is
 * written as the `.js` file it stands for (`./x` → `./x.js`, a folder → `./x/index.js`).
 */
async function emitDeclarations(projectDir: string): Promise<{ sources: string[]; outputs: string[] }> {
  // Loaded only when the declarations are stale: the compiler takes seconds to load.
  const { default: ts } = await import("typescript");
  const configFile = path.join(projectDir, "tsconfig.json");
  const read = ts.readConfigFile(configFile, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, projectDir);
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: projectDir,
    outDir: path.join(projectDir, TYPES_DIR),
    incremental: false,
    composite: false,
    // Types only as far as the declarations need them, not every body checked: a third less CPU
    // (~20 s of one core instead of ~30) for the same declarations (an enum's members may come in
    // another order). Type errors are `npm run typecheck`'s.
    noCheck: true,
  };
  const program = ts.createProgram({ rootNames: [path.join(projectDir, LIBRARY_ENTRY)], options });
  const outputs: string[] = [];
  const emitted = program.emit(undefined, (fileName, text) => {
    const source = path
      .join(projectDir, path.relative(options.outDir ?? "", fileName))
      .replace(/\.d\.ts$/, ".ts");
    writeAtomically(fileName, withJsSpecifiers(text, path.dirname(source)));
    outputs.push(fileName);
  });
  // Type errors are `npm run typecheck`'s to report; here only what stops the declarations. (The
  // model catalogs' JSON files have no declarations of their own: their emit is skipped, fine.)
  const problems = emitted.diagnostics;
  if (problems.length > 0) {
    const host: ts.FormatDiagnosticsHost = {
      getCanonicalFileName: (name) => name,
      getCurrentDirectory: () => projectDir,
      getNewLine: () => "\n",
    };
    throw new DeclarationError(ts.formatDiagnostics(problems.slice(0, 20), host));
  }
  const sources = program
    .getSourceFiles()
    .map((file) => file.fileName)
    .filter((file) => !file.includes("/node_modules/") && file.startsWith(projectDir));
  return { sources: projectPaths(projectDir, sources), outputs };
}

const RELATIVE_SPECIFIER = /(from\s+|import\(\s*)(["'])(\.{1,2}\/[^"']*)\2/g;

/** A declaration file's relative specifiers, each naming the `.js` file a consumer's resolver expects. */
export function withJsSpecifiers(text: string, sourceDir: string): string {
  return text.replace(RELATIVE_SPECIFIER, (whole, lead: string, quote: string, specifier: string) => {
    if (/\.(js|mjs|cjs|json)$/.test(specifier)) return whole;
    const base = path.join(sourceDir, specifier);
    if (existsSync(`${base}.ts`)) return `${lead}${quote}${specifier}.js${quote}`;
    if (existsSync(path.join(base, "index.ts"))) return `${lead}${quote}${specifier}/index.js${quote}`;
    return whole;
  });
}
