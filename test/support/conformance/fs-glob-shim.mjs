// Node 20 has no fs.globSync, which @modelcontextprotocol/conformance imports by name (it targets
// Node 22). This module is `fs` plus a globSync built on readdirSync and path.matchesGlob (Node
// 20.17+), enough for the suite's own file lookups. Loaded only for that package (register-fs-shim.mjs).
import fs from "node:fs";
import path from "node:path";

export * from "node:fs";
export default fs;

export function globSync(pattern, options = {}) {
  const cwd = options.cwd ?? process.cwd();
  const patterns = Array.isArray(pattern) ? pattern : [pattern];
  const entries = fs.readdirSync(cwd, { recursive: true }).map(String);
  return entries.filter((entry) => patterns.some((glob) => path.matchesGlob(entry, glob)));
}
