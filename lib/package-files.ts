import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The npm package's name: how its root is told apart from a consumer's project around it. */
export const PACKAGE_NAME = "goal-loops";

let root: string | undefined;

/**
 * The folder of goal-loops' own package.json. The same code runs from its TypeScript sources in a
 * clone (lib/…) and bundled in the installed package (dist/…), so files it ships beside itself
 * (the pre-built Lambda bundles, the console, the examples) are found from the package root, never
 * from the running file's own folder.
 */
export function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest) && packageNameOf(manifest) === PACKAGE_NAME) {
      root = dir;
      return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir)
      throw new Error(`goal-loops: no package.json named ${PACKAGE_NAME} above ${import.meta.url}`);
    dir = parent;
  }
}

/** A file or folder of the package, by its path from the package root. */
export function packageFile(...segments: string[]): string {
  return path.join(packageRoot(), ...segments);
}

/** The package's version, as its package.json says. */
export function packageVersion(): string {
  const manifest: unknown = JSON.parse(readFileSync(packageFile("package.json"), "utf8"));
  const version =
    typeof manifest === "object" && manifest !== null ? Reflect.get(manifest, "version") : undefined;
  return typeof version === "string" ? version : "0.0.0";
}

function packageNameOf(manifest: string): unknown {
  const parsed: unknown = JSON.parse(readFileSync(manifest, "utf8"));
  return typeof parsed === "object" && parsed !== null ? Reflect.get(parsed, "name") : undefined;
}
