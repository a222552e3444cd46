import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import ts from "typescript";

/** Source file → the source files it imports (relative specifiers only), as repository paths. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

const SOURCE = /\.(ts|mts|mjs|cjs)$/;

/** Every source file under `dirs` (repository-relative), skipping node_modules. */
export function sourceFiles(root: string, dirs: readonly string[]): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== "node_modules") walk(path);
      else if (entry.isFile() && SOURCE.test(entry.name)) found.push(path);
    }
  };
  for (const dir of dirs) walk(dir);
  return found.sort();
}

const isFile = (path: string): boolean => existsSync(path) && statSync(path).isFile();

/** The file a relative specifier names: as written, `.js` written for `.ts`, `.ts`, or a folder's index. */
function resolveSpecifier(root: string, from: string, specifier: string): string | undefined {
  const base = normalize(join(dirname(from), specifier));
  const candidates = [
    base,
    base.replace(/\.js$/, ".ts"),
    `${base}.ts`,
    `${base}.mts`,
    join(base, "index.ts"),
  ];
  return candidates.find((candidate) => isFile(join(root, candidate)));
}

/**
 * The import graph of `files`, read with TypeScript's own pre-processor: static imports, `export …
 * from`, and dynamic `import("…")` with a literal specifier. Package imports are left out.
 */
export function readImportGraph(root: string, files: readonly string[]): ImportGraph {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(join(root, file), "utf8"), true, true);
    const targets = info.importedFiles
      .map((imported) => imported.fileName)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => resolveSpecifier(root, file, specifier) ?? `${file} → ${specifier} (unresolved)`);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Every import cycle, each as the files on it (Tarjan's strongly connected components). */
export function importCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    const selfImport = graph.get(file)?.includes(file) ?? false;
    if (component.length > 1 || selfImport) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

/** `from → to` for every import the predicate refuses. */
export function forbiddenImports(
  graph: ImportGraph,
  refuses: (from: string, to: string) => boolean,
): string[] {
  return [...graph].flatMap(([from, targets]) =>
    targets.filter((to) => refuses(from, to)).map((to) => `${from} → ${to}`),
  );
}

/** The pattern folder (`react`, `plan-execute`, `reflexion`) a core file belongs to, if any. */
export function patternOf(file: string): string | undefined {
  return /^lambdas\/core\/patterns\/([^/]+)\//.exec(file)?.[1];
}

/** Every folder under `dir`, repository-relative, `dir` itself first. */
export function foldersUnder(root: string, dir: string): string[] {
  const children = readdirSync(join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => foldersUnder(root, join(dir, entry.name)));
  return [dir, ...children];
}

/** Every file reachable from `roots` along imports, the roots left out, sorted. */
export function reachableFrom(graph: ImportGraph, roots: readonly string[]): string[] {
  const seen = new Set<string>(roots);
  const queue = [...roots];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const target of graph.get(file) ?? []) {
      if (seen.has(target)) continue;
      seen.add(target);
      queue.push(target);
    }
  }
  return [...seen].filter((file) => !roots.includes(file)).sort();
}
