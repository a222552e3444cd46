#!/usr/bin/env node
// npm runs bins with plain node: load the TypeScript CLI through tsx's scoped loader.
import { tsImport } from "tsx/esm/api";

await tsImport("./goal-loops.ts", import.meta.url);
