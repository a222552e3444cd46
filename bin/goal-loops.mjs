#!/usr/bin/env node
// npm runs bins with plain node: load the TypeScript CLI through tsx's scoped loader.
import { tsImport } from "tsx/esm/api";

// The AWS SDK warns on Node 20 that its support ends in 2027: noise for a supported Node (>= 20.19).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

await tsImport("./goal-loops.ts", import.meta.url);
