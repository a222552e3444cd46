#!/usr/bin/env node
// `npm run build` (and `npm pack`, through prepack): everything the package ships that is built.
// `-- --force` rebuilds what is fresh too; `-- handlers|library|cli` builds only those parts.
import path from "node:path";
import { BUILD_PARTS, type BuildPart, buildPackage } from "../lib/build/build-package";

const args = process.argv.slice(2);
const isPart = (arg: string): arg is BuildPart => (BUILD_PARTS as readonly string[]).includes(arg);
const unknown = args.filter((arg) => arg !== "--force" && !isPart(arg));
if (unknown.length > 0) {
  console.error(
    `Unknown argument(s): ${unknown.join(" ")}; use --force and any of ${BUILD_PARTS.join(", ")}`,
  );
  process.exit(1);
}
const parts = args.filter(isPart);
await buildPackage({
  projectDir: path.resolve(import.meta.dirname, ".."),
  force: args.includes("--force"),
  ...(parts.length === 0 ? {} : { parts }),
});
