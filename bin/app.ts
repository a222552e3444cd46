#!/usr/bin/env node
import path from "node:path";
import { buildHandlerBundles } from "../lib/build/build-handlers";
import { ConfigError } from "../lib/config/parse-settings";
import { buildApp } from "../lib/goal-loops-app";

const projectDir = path.resolve(import.meta.dirname, "..");
// The functions deploy the pre-built bundles of dist/lambdas, as the published package's do; in
// this clone a handler whose sources changed since its bundle is bundled again first (stderr: the
// CLI's stdout belongs to the synth).
await buildHandlerBundles({ projectDir, log: (line) => console.error(line) });

// Pinned to an environment only when the CLI resolved both from credentials; otherwise agnostic.
const { CDK_DEFAULT_ACCOUNT: account, CDK_DEFAULT_REGION: region } = process.env;
// The configuration is goal-loops.config.json beside this folder, or the file `-c config=path` names
// (several, `-c config=a.json:b.json`: one stack each); a bad one stops the synth with its message
// alone (the stack trace says nothing more).
try {
  buildApp({
    env: account && region ? { account, region } : undefined,
    projectDir,
  }).app.synth();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`${error.name}: ${error.message}`);
  process.exit(1);
}
