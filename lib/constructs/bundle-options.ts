import { readdirSync } from "node:fs";
import { packageFile } from "../package-files";

/**
 * How every goal-loops Lambda bundle is built, in one place: the package's build (lib/build) bundles
 * the loop's own handlers with these settings, and `GoalLoopFunction` bundles a user tool's `entry`
 * with the same ones at synth.
 */

/** An ES module for Node 20, so the same bundle runs in the local runtime and on Lambda's Node 22. */
export const BUNDLE_TARGET = "node20";

/** Resolve a package's ES module build first, as Lambda bundles usually do. */
export const BUNDLE_MAIN_FIELDS = ["module", "main"] as const;

/**
 * Lets a bundled ES module call `require` for Node built-ins: esbuild keeps a CommonJS dependency's
 * `require("node:…")` calls as they are, and an ES module has no `require` of its own.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __goalLoopsCreateRequire } from 'module'; const require = __goalLoopsCreateRequire(import.meta.url);";

/** The Lambda runtime's own AWS SDK is used: `@aws-sdk/*` is never bundled. */
export const BUNDLE_EXTERNALS = ["@aws-sdk/*"] as const;

/**
 * `@aws-sdk/*` stays external, but an ES module's `import` of a CommonJS package costs far more
 * than `require`: Node's ESM loader resolves every file the SDK requires itself, compiles each one
 * to detect its format and scans it for exports (the two DynamoDB packages: about 345 ms of CPU
 * imported, 170 ms required, Node 20 on the bench machine). Each SDK package is therefore aliased
 * to a one-line CommonJS file in `aws-sdk-require/` that `require`s it (through the banner's
 * `require`), so the runtime's copy loads through the CommonJS loader. A package without a file
 * there would still be imported, only slower; the stack test fails on such a bundle. The files ship
 * with the package (a user tool's `entry` is bundled with them too).
 */
export function sdkRequireAliases(): Record<string, string> {
  const dir = packageFile("lib", "constructs", "aws-sdk-require");
  return Object.fromEntries(
    readdirSync(dir)
      .filter((file) => file.endsWith(".cjs"))
      .map((file) => [`@aws-sdk/${file.slice(0, -".cjs".length)}`, `${dir}/${file}`]),
  );
}
