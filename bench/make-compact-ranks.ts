/**
 * Writes lambdas/core/models/context/cl100k-compact.json: the first COMPACT_RANK_COUNT merges of
 * js-tiktoken's cl100k_base, the table the Lambdas count tokens with (see compact-ranks.ts),
 * brotli-compressed (see packCompactRanks). Run after upgrading js-tiktoken:
 * `npx tsx bench/make-compact-ranks.ts`; a unit test fails while the committed file and the package disagree.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import {
  COMPACT_RANK_COUNT,
  compactRanks,
  packCompactRanks,
} from "../lambdas/core/models/context/compact-ranks";

const target = join(import.meta.dirname, "..", "lambdas", "core", "models", "context", "cl100k-compact.json");
writeFileSync(target, `${JSON.stringify(packCompactRanks(compactRanks(cl100k, COMPACT_RANK_COUNT)))}\n`);
console.log(`wrote ${target}`);
