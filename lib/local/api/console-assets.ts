import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { packageFile } from "../../package-files";

/** The console as served: one HTML page and its script and style, built from `console/`. */
export interface ConsoleAssets {
  readonly html: string;
  readonly js: string;
  readonly css: string;
}

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

/** Thrown when the built console is missing: a clone that was never built. */
export class ConsoleNotBuiltError extends Error {
  override readonly name = "ConsoleNotBuiltError";
}

let loaded: Promise<ConsoleAssets> | undefined;

/**
 * The console as the package's build left it (`dist/console`: Preact and the GoalSpec JSON Schema
 * its form validates against, compiled in by lib/build/build-cli.ts), read once per process. The
 * published package ships it built; in a clone `npm run build` (or the CLI, or the tests' setup)
 * builds it.
 */
export function consoleAssets(): Promise<ConsoleAssets> {
  loaded ??= (async () => {
    const file = (name: string) => packageFile("dist", "console", name);
    if (!existsSync(file("app.js"))) {
      throw new ConsoleNotBuiltError(`The console is not built (${file("app.js")}): run npm run build`);
    }
    const [js, css] = await Promise.all([
      readFile(file("app.js"), "utf8"),
      readFile(file("app.css"), "utf8"),
    ]);
    return { html: PAGE, js, css };
  })();
  loaded.catch(() => {
    loaded = undefined;
  });
  return loaded;
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
