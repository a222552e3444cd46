import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  foldersUnder,
  forbiddenImports,
  type ImportGraph,
  reachableFrom,
  readImportGraph,
  sourceFiles,
} from "./import-graph";

const ROOT = resolve(import.meta.dirname, "../..");
const GRAPH = readImportGraph(
  ROOT,
  sourceFiles(ROOT, ["lambdas", "lib", "bin", "bench", "test", "examples"]),
);

/**
 * The construct library, what `npm install goal-loops` gives a CDK app: the GoalLoops construct and
 * its stack, the constructs, the config, preflight, and the Lambda code the constructs bundle.
 */
const isConstructLibrary = (file: string): boolean =>
  /^lib\/(index|goal-loops|goal-loops-stack|goal-loops-app|package-files)\.ts$/.test(file) ||
  /^lib\/(constructs|config|preflight|client)\//.test(file) ||
  file.startsWith("lambdas/") ||
  file === "bin/app.ts";

/** Only a laptop runs these: the local runtime and `goal-loops start` (`npm start`). */
const isLocalRuntime = (file: string): boolean =>
  file.startsWith("lib/local/") || file === "bin/goal-loops-start.ts";

/** What the construct library must never reach: the local runtime, tests, benchmarks. */
const outsideLibrary = (file: string): boolean =>
  isLocalRuntime(file) || file.startsWith("test/") || file.startsWith("bench/");

const importsLocalRuntime = (from: string, to: string): boolean =>
  isConstructLibrary(from) && outsideLibrary(to);

/**
 * The package's build (esbuild, the TypeScript compiler: development dependencies). A clone's own
 * app and setup run it; nothing the published package loads may reach it.
 */
const isBuild = (file: string): boolean => file.startsWith("lib/build/") || file === "bin/build.ts";

/**
 * lib/local's folders, bottom first: a folder imports only its own and the ones below. The root
 * (local-stack.ts) composes them all; an unlisted folder is refused until it is given a place here
 * and in lib/local/index.ts.
 */
const LOCAL_LAYERS: Readonly<Record<string, number>> = {
  shared: 0,
  "cdk-out": 1,
  storage: 1,
  lambda: 1,
  eventbridge: 1,
  bedrock: 1,
  api: 1,
  account: 1,
  "step-functions": 2,
  cli: 2,
  scheduler: 3,
  "": 4,
};
const localFolderOf = (file: string): string | undefined => {
  const match = /^lib\/local\/(.*)$/.exec(file);
  if (match === null) return undefined;
  const rest = match[1] ?? "";
  return rest.includes("/") ? rest.split("/")[0] : "";
};
const localImportsUpward = (from: string, to: string): boolean => {
  const [a, b] = [localFolderOf(from), localFolderOf(to)];
  if (a === undefined || b === undefined || a === b) return false;
  const [layerA, layerB] = [LOCAL_LAYERS[a], LOCAL_LAYERS[b]];
  return layerA === undefined || layerB === undefined || layerB >= layerA;
};

/**
 * lambdas/adapters: one folder per AWS service. A service's folder reaches another only through the
 * two folders every service may use; the root (goal-store-adapters.ts) composes services and is
 * imported by none of them.
 */
const SHARED_ADAPTER_FOLDERS: ReadonlySet<string> = new Set(["shared", "secrets"]);
const adapterFolderOf = (file: string): string | undefined => {
  const match = /^lambdas\/adapters\/(.*)$/.exec(file);
  if (match === null) return undefined;
  const rest = match[1] ?? "";
  return rest.includes("/") ? rest.split("/")[0] : "";
};
/**
 * The one crossing allowed: `notify` posts to Slack with the Slack folder's own Web API client, a
 * leaf that imports nothing of the Slack folder (one client, not a second copy in notify/).
 */
const SLACK_WEB_API = "lambdas/adapters/slack/slack-web-api.ts";
const adapterCrossesServices = (from: string, to: string): boolean => {
  const [a, b] = [adapterFolderOf(from), adapterFolderOf(to)];
  if (a === undefined || b === undefined || a === b || a === "") return false;
  if (a === "notify" && to === SLACK_WEB_API) return false;
  if (b === "") return true;
  if (a === "shared") return true;
  if (a === "secrets") return b !== "shared";
  return !SHARED_ADAPTER_FOLDERS.has(b);
};

/** Adapters answer the core's ports: they never reach up into handlers or the CDK side. */
const adapterReachesUp = (from: string, to: string): boolean =>
  adapterFolderOf(from) !== undefined && (to.startsWith("lambdas/handlers/") || to.startsWith("lib/"));

describe("the construct library's boundary", () => {
  it("never imports the local runtime, tests or benchmarks", () => {
    expect(forbiddenImports(GRAPH, importsLocalRuntime)).toEqual([]);
  });

  it("reaches nothing of the local runtime from its entry points, however indirectly", () => {
    // Act
    const reached = reachableFrom(GRAPH, ["lib/index.ts", "bin/app.ts"]).filter(outsideLibrary);

    // Assess
    expect(reached).toEqual([]);
  });

  it("reaches nothing of the build from what the package loads (its library and its CLI)", () => {
    // Act
    const reached = reachableFrom(GRAPH, ["lib/index.ts", "bin/goal-loops.ts"]).filter(isBuild);

    // Assess
    expect(reached).toEqual([]);
  });
});

describe("lib/local", () => {
  it("points every import between its folders down the layers", () => {
    expect(forbiddenImports(GRAPH, localImportsUpward)).toEqual([]);
  });

  it("has a place in the layers for every folder", () => {
    const unlisted = foldersUnder(ROOT, "lib/local")
      .map((folder) => localFolderOf(`${folder}/x.ts`) ?? "")
      .filter((folder) => LOCAL_LAYERS[folder] === undefined);
    expect(unlisted).toEqual([]);
  });
});

describe("lambdas/adapters", () => {
  it("keeps each service's folder apart from the others but for shared/ and secrets/", () => {
    expect(forbiddenImports(GRAPH, adapterCrossesServices)).toEqual([]);
  });

  it("never imports a handler or the CDK side", () => {
    expect(forbiddenImports(GRAPH, adapterReachesUp)).toEqual([]);
  });
});

describe("folders of lib/local and lambdas/adapters", () => {
  const folders = [...foldersUnder(ROOT, "lib/local"), ...foldersUnder(ROOT, "lambdas/adapters")];

  it("hold at most 15 source files each, beside their index", () => {
    // Act
    const crowded = folders
      .map((folder) => {
        const files = readdirSync(join(ROOT, folder), { withFileTypes: true }).filter(
          (entry) => entry.isFile() && /\.(ts|mjs)$/.test(entry.name) && entry.name !== "index.ts",
        );
        return { folder, files: files.length };
      })
      .filter(({ files }) => files > 15);

    // Assess
    expect(crowded).toEqual([]);
  });

  it("each have an index.ts saying what belongs there and what does not", () => {
    const undocumented = folders.filter((folder) => {
      const index = join(folder, "index.ts");
      return (
        !GRAPH.has(index) ||
        !/^\/\*\*[\s\S]*?Not here[\s\S]*?\*\//.test(readFileSync(join(ROOT, index), "utf8"))
      );
    });
    expect(undocumented).toEqual([]);
  });
});

describe("the rules above", () => {
  const planted = mkdtempSync(join(tmpdir(), "planted-imports-"));
  afterAll(() => rmSync(planted, { recursive: true, force: true }));

  /** Writes source files into a scratch tree and reads their graph as the real one is read. */
  const plant = (files: Record<string, string>): ImportGraph => {
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(join(planted, dirname(file)), { recursive: true });
      writeFileSync(join(planted, file), text);
    }
    return readImportGraph(planted, Object.keys(files));
  };

  it("refuse a forbidden import planted in real files", () => {
    // Prepare: a construct importing the local runtime, a Bedrock endpoint importing the stack, and a
    // Slack adapter importing the DynamoDB one.
    const graph = plant({
      "lib/index.ts": 'export * from "./constructs/loop";\n',
      "lib/constructs/loop.ts":
        'import { runner } from "../local/step-functions/runner";\nexport { runner };\n',
      "lib/local/step-functions/runner.ts": "export const runner = 1;\n",
      "lib/local/bedrock/endpoint.ts": 'import { stack } from "../local-stack";\nexport { stack };\n',
      "lib/local/local-stack.ts": "export const stack = 1;\n",
      "lambdas/adapters/slack/notifier.ts": 'import { keys } from "../dynamodb/keys";\nexport { keys };\n',
      "lambdas/adapters/dynamodb/keys.ts":
        'import { load } from "../shared/load";\nexport const keys = load;\n',
      "lambdas/adapters/shared/load.ts": "export const load = 1;\n",
    });

    // Act + Assess
    expect(forbiddenImports(graph, importsLocalRuntime)).toEqual([
      "lib/constructs/loop.ts → lib/local/step-functions/runner.ts",
    ]);
    expect(reachableFrom(graph, ["lib/index.ts"]).filter(outsideLibrary)).toEqual([
      "lib/local/step-functions/runner.ts",
    ]);
    expect(forbiddenImports(graph, localImportsUpward)).toEqual([
      "lib/local/bedrock/endpoint.ts → lib/local/local-stack.ts",
    ]);
    expect(forbiddenImports(graph, adapterCrossesServices)).toEqual([
      "lambdas/adapters/slack/notifier.ts → lambdas/adapters/dynamodb/keys.ts",
    ]);
  });

  it("let a service reach shared/ and secrets/, and the root compose services", () => {
    const graph: ImportGraph = new Map([
      ["lambdas/adapters/slack/notifier.ts", ["lambdas/adapters/secrets/slack-secrets.ts"]],
      ["lambdas/adapters/secrets/slack-secrets.ts", ["lambdas/adapters/shared/load-once.ts"]],
      ["lambdas/adapters/goal-store-adapters.ts", ["lambdas/adapters/dynamodb/store.ts"]],
      ["lambdas/adapters/shared/fault.ts", ["lambdas/adapters/secrets/slack-secrets.ts"]],
      ["lib/local/scheduler/endpoint.ts", ["lib/local/step-functions/prepare.ts", "lib/local/unknown/x.ts"]],
    ]);
    expect(forbiddenImports(graph, adapterCrossesServices)).toEqual([
      "lambdas/adapters/shared/fault.ts → lambdas/adapters/secrets/slack-secrets.ts",
    ]);
    expect(forbiddenImports(graph, localImportsUpward)).toEqual([
      "lib/local/scheduler/endpoint.ts → lib/local/unknown/x.ts",
    ]);
  });
});

describe("the console", () => {
  it("calls the goals API only through the typed client: fetch appears only in its sign-in (auth.ts)", () => {
    // Prepare
    const dir = join(ROOT, "console", "src");
    const sources = readdirSync(dir).filter((file) => /\.tsx?$/.test(file));

    // Act
    const fetching = sources.filter((file) => /\bfetch\(/.test(readFileSync(join(dir, file), "utf8")));
    const usesClient = readFileSync(join(dir, "api.ts"), "utf8").includes("new GoalLoopsClient(");

    // Assess
    expect(fetching).toEqual(["auth.ts"]);
    expect(usesClient).toBe(true);
  });
});
