import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  foldersUnder,
  forbiddenImports,
  type ImportGraph,
  importCycles,
  patternOf,
  readImportGraph,
  sourceFiles,
} from "./import-graph";

const ROOT = resolve(import.meta.dirname, "../..");
const GRAPH = readImportGraph(
  ROOT,
  sourceFiles(ROOT, ["lambdas", "lib", "bin", "bench", "test", "examples"]),
);

const isCore = (file: string): boolean => file.startsWith("lambdas/core/");

/** A pattern folder imports no other pattern's folder: what two patterns share is the skeleton (loop/). */
const crossesPatterns = (from: string, to: string): boolean => {
  const [a, b] = [patternOf(from), patternOf(to)];
  return isCore(from) && a !== undefined && b !== undefined && a !== b;
};

/** The rest of the core (goal, models, ports, human, loop, intake, fork) never reaches into a pattern. */
const reachesIntoPattern = (from: string, to: string): boolean =>
  isCore(from) && patternOf(from) === undefined && patternOf(to) !== undefined;

/**
 * The core's layers, bottom first: a folder imports only its own layer and the ones below. The
 * vocabularies below are the exception: every layer may name a model role, a human-input event
 * type or a step result (the state machine's payload), and builds its schemas with core/zod.ts.
 */
const LAYERS: Readonly<Record<string, number>> = {
  goal: 0,
  operations: 0,
  ports: 1,
  tenants: 1,
  models: 2,
  human: 3,
  loop: 3,
  patterns: 4,
  intake: 4,
  fork: 4,
};
const VOCABULARIES = new Set([
  "lambdas/core/models/model-roles.ts",
  "lambdas/core/human/human-input-events.ts",
  "lambdas/core/loop/step-result.ts",
  "lambdas/core/zod.ts",
]);
const layerOf = (file: string): number | undefined => LAYERS[file.split("/")[2] ?? ""];
const importsUpward = (from: string, to: string): boolean => {
  const [a, b] = [layerOf(from), layerOf(to)];
  return isCore(from) && isCore(to) && !VOCABULARIES.has(to) && a !== undefined && (b === undefined || b > a);
};

/** Lambda code imports files, never a folder's index (an index may gather its subfolders' indexes): a bundle carries only what it uses. */
const importsBarrel = (from: string, to: string): boolean =>
  from.startsWith("lambdas/") &&
  !from.endsWith("/index.ts") &&
  to.startsWith("lambdas/") &&
  to.endsWith("/index.ts");

/** The core is pure: it reaches handlers, adapters and tools only through its ports. */
const coreLeavesCore = (from: string, to: string): boolean => isCore(from) && !isCore(to);

describe("import graph", () => {
  it("resolves every relative import", () => {
    // Act
    const unresolved = [...GRAPH.values()].flat().filter((target) => target.endsWith("(unresolved)"));

    // Assess
    expect(unresolved).toEqual([]);
  });

  it("has no import cycle between files", () => {
    expect(importCycles(GRAPH)).toEqual([]);
  });

  it("keeps every pattern folder apart from the others", () => {
    expect(forbiddenImports(GRAPH, crossesPatterns)).toEqual([]);
  });

  it("keeps the goal, models, ports, human, loop and intake folders free of pattern code", () => {
    expect(forbiddenImports(GRAPH, reachesIntoPattern)).toEqual([]);
  });

  it("points every import of lambdas/core down its layers", () => {
    expect(forbiddenImports(GRAPH, importsUpward)).toEqual([]);
  });

  it("keeps lambdas/core pure and lambda code off index files", () => {
    expect(forbiddenImports(GRAPH, coreLeavesCore)).toEqual([]);
    expect(forbiddenImports(GRAPH, importsBarrel)).toEqual([]);
  });

  it("finds what these rules refuse when it is there", () => {
    // Prepare: a cycle through three files, one pattern importing another, the skeleton importing a
    // pattern, and a step importing an index.
    const graph: ImportGraph = new Map([
      ["lambdas/core/goal/a.ts", ["lambdas/core/goal/b.ts"]],
      ["lambdas/core/goal/b.ts", ["lambdas/core/loop/c.ts"]],
      ["lambdas/core/loop/c.ts", ["lambdas/core/goal/a.ts", "lambdas/core/patterns/react/r.ts"]],
      ["lambdas/core/patterns/react/r.ts", ["lambdas/core/patterns/reflexion/x.ts"]],
      ["lambdas/core/patterns/reflexion/x.ts", ["lambdas/core/models/context/index.ts"]],
    ]);

    // Act + Assess
    expect(importCycles(graph)).toEqual([
      ["lambdas/core/goal/a.ts", "lambdas/core/goal/b.ts", "lambdas/core/loop/c.ts"],
    ]);
    expect(forbiddenImports(graph, crossesPatterns)).toEqual([
      "lambdas/core/patterns/react/r.ts → lambdas/core/patterns/reflexion/x.ts",
    ]);
    expect(forbiddenImports(graph, reachesIntoPattern)).toEqual([
      "lambdas/core/loop/c.ts → lambdas/core/patterns/react/r.ts",
    ]);
    expect(forbiddenImports(graph, importsBarrel)).toEqual([
      "lambdas/core/patterns/reflexion/x.ts → lambdas/core/models/context/index.ts",
    ]);
    expect(forbiddenImports(graph, importsUpward)).toEqual([
      "lambdas/core/goal/b.ts → lambdas/core/loop/c.ts",
      "lambdas/core/loop/c.ts → lambdas/core/patterns/react/r.ts",
    ]);
  });
});

describe("folders", () => {
  it("gives every folder of lambdas/core an index.ts saying what belongs there and what does not", () => {
    // Act
    const undocumented = foldersUnder(ROOT, "lambdas/core").filter((folder) => {
      const index = join(ROOT, folder, "index.ts");
      if (!existsSync(index)) return true;
      const text = readFileSync(index, "utf8");
      const says = folder === "lambdas/core" ? /^\/\*\*/ : /^\/\*\*[\s\S]*?Not here[\s\S]*?\*\//;
      return !says.test(text);
    });

    // Assess
    expect(undocumented).toEqual([]);
  });

  it("mirrors lambdas/core in lambdas/handlers (api/ is the goals API, a door to every concept)", () => {
    // Act
    const unmatched = foldersUnder(ROOT, "lambdas/handlers")
      .map((folder) => relative("lambdas/handlers", folder))
      .filter((folder) => folder !== "" && folder !== "api" && !folder.startsWith("api/"))
      .filter((folder) => !existsSync(join(ROOT, "lambdas/core", folder)));

    // Assess
    expect(unmatched).toEqual([]);
  });
});
