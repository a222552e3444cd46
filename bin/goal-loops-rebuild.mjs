// In a clone only (bin/goal-loops.mjs loads it when the TypeScript sources are there): builds
// dist/cli when it is missing or one of its inputs changed since, by the rule and from the record
// lib/build/build-record.ts keeps (dist/build/cli.json). Plain JavaScript: it runs before anything
// could load TypeScript, and costs a few stat calls when the CLI is fresh.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Why dist/cli must be built again, or undefined when it is fresh. */
function staleReason() {
  const recordFile = path.join(root, "dist", "build", "cli.json");
  if (!existsSync(recordFile)) return "never built";
  const { builtAt, inputs, outputs } = JSON.parse(readFileSync(recordFile, "utf8"));
  const missing = outputs.find((file) => !existsSync(path.join(root, file)));
  if (missing !== undefined) return `${missing} is missing`;
  for (const input of inputs) {
    const file = path.join(root, input);
    if (!existsSync(file)) return `${input} is gone`;
    if (statSync(file).mtimeMs > builtAt) return `${input} changed`;
  }
  return undefined;
}

/** Builds the CLI (bin/build.ts cli, through tsx) when it is stale; its output goes to stderr. */
export function buildCliIfStale() {
  const reason = staleReason();
  if (reason === undefined) return;
  process.stderr.write(`goal-loops: building the CLI first (${reason})\n`);
  const tsx = path.join(root, "node_modules", "tsx", "dist", "cli.mjs");
  const built = spawnSync(process.execPath, [tsx, path.join(root, "bin", "build.ts"), "cli"], {
    stdio: ["ignore", 2, 2],
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
