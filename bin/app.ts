#!/usr/bin/env node
import path from "node:path";
import { ConfigError } from "../lib/config/parse-settings";
import { buildApp } from "../lib/goal-loops-app";

// Pinned to an environment only when the CLI resolved both from credentials; otherwise agnostic.
const { CDK_DEFAULT_ACCOUNT: account, CDK_DEFAULT_REGION: region } = process.env;
// The configuration is goal-loops.config.json beside this folder, or the file `-c config=path` names;
// a bad one stops the synth with its message alone (the stack trace says nothing more).
try {
  buildApp({
    env: account && region ? { account, region } : undefined,
    projectDir: path.resolve(import.meta.dirname, ".."),
  }).app.synth();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`${error.name}: ${error.message}`);
  process.exit(1);
}
