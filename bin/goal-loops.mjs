#!/usr/bin/env node
// `goal-loops`: runs the compiled CLI (dist/cli, built from bin/goal-loops.ts). In a clone of the
// repository, where the TypeScript sources sit beside this file, the CLI is built first when it is
// missing or older than one of them; the published package ships it built, and has no sources.
import { existsSync } from "node:fs";

// The AWS SDK warns on Node 20 that its support ends in 2027: noise for a supported Node (>= 20.19).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

if (existsSync(new URL("./goal-loops.ts", import.meta.url))) {
  const { buildCliIfStale } = await import("./goal-loops-rebuild.mjs");
  buildCliIfStale();
}
await import("../dist/cli/goal-loops.js");
