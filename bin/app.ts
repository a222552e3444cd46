#!/usr/bin/env node
import { buildApp } from "../lib/goal-loops-app";

// Pinned to an environment only when the CLI resolved both from credentials; otherwise agnostic.
const { CDK_DEFAULT_ACCOUNT: account, CDK_DEFAULT_REGION: region } = process.env;
buildApp({ env: account && region ? { account, region } : undefined }).app.synth();
