import path from "node:path";
import { goalSpecJsonSchema } from "../../../lambdas/core/goal/goal-spec";

/** The console as served: one HTML page and its script and style, built from `console/`. */
export interface ConsoleAssets {
  readonly html: string;
  readonly js: string;
  readonly css: string;
}

const CONSOLE_DIR = path.resolve(import.meta.dirname, "..", "..", "..", "console");

/** The page: it loads only what the same server serves (no CDN, nothing fetched at run time). */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>goal-loops console</title>
<link rel="stylesheet" href="/console/app.css">
</head>
<body>
<div id="app"></div>
<script type="module" src="/console/app.js"></script>
</body>
</html>
`;

let built: Promise<ConsoleAssets> | undefined;

/**
 * Bundles the console (Preact, from npm) with esbuild, in memory, once per process; the GoalSpec
 * JSON Schema the new-goal form validates against is generated from the zod schema here, at build
 * time, and compiled into the bundle.
 */
export function consoleAssets(): Promise<ConsoleAssets> {
  built ??= (async () => {
    // esbuild loads on the first request for the console, not with the runtime.
    const { build } = await import("esbuild");
    const result = await build({
      entryPoints: [path.join(CONSOLE_DIR, "src", "main.tsx")],
      bundle: true,
      write: false,
      format: "esm",
      target: "es2022",
      minify: true,
      outdir: "out",
      jsx: "automatic",
      jsxImportSource: "preact",
      tsconfig: path.join(CONSOLE_DIR, "tsconfig.json"),
      define: { GOAL_SPEC_JSON_SCHEMA: JSON.stringify(goalSpecJsonSchema()) },
      logLevel: "silent",
    });
    const file = (extension: string) =>
      result.outputFiles.find((output) => output.path.endsWith(extension))?.text ?? "";
    return { html: PAGE, js: file(".js"), css: file(".css") };
  })();
  built.catch(() => {
    built = undefined;
  });
  return built;
}

/** The console's own paths and what each serves. */
export async function consoleFile(
  pathname: string,
): Promise<{ contentType: string; body: string } | undefined> {
  if (pathname === "/console" || pathname === "/console/") {
    return { contentType: "text/html; charset=utf-8", body: (await consoleAssets()).html };
  }
  if (pathname === "/console/app.js") {
    return { contentType: "text/javascript; charset=utf-8", body: (await consoleAssets()).js };
  }
  if (pathname === "/console/app.css") {
    return { contentType: "text/css; charset=utf-8", body: (await consoleAssets()).css };
  }
  return undefined;
}
