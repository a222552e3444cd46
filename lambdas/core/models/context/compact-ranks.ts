import { brotliCompressSync, brotliDecompressSync, constants } from "node:zlib";
import type { TiktokenBPE } from "js-tiktoken/lite";

/** How many of cl100k_base's merges the Lambda's token counter keeps (see `compactRanks`). */
export const COMPACT_RANK_COUNT = 8192;

/**
 * One special token, never allowed when counting (so it is counted as text): js-tiktoken needs at
 * least one, an empty list makes its special-token search match the empty string forever.
 */
const SPECIAL_TOKENS = { "<|endoftext|>": 100257 };

/**
 * The first `count` ranks of a js-tiktoken rank table. BPE merges are
 * ordered, so any prefix of the table is itself a valid byte-level BPE: it encodes every text
 * (all 256 bytes have the lowest ranks) into at least as many tokens as the full table does.
 * The full cl100k_base table is 1.1 MB and takes about 1.5 s to load, too much for a Lambda
 * bundle; its first 8,192 merges are 70 KB, load in about 40 ms and count 20–35 % more tokens,
 * an upper bound that makes the context budget trip a little early rather than late.
 */
export function compactRanks(full: TiktokenBPE, count: number): TiktokenBPE {
  const lines: string[] = [];
  for (const line of full.bpe_ranks.split("\n")) {
    if (line === "") continue;
    const [marker, offsetText, ...tokens] = line.split(" ");
    const offset = Number(offsetText);
    if (offset >= count) break;
    lines.push([marker, offsetText, ...tokens.slice(0, count - offset)].join(" "));
  }
  return { pat_str: full.pat_str, special_tokens: SPECIAL_TOKENS, bpe_ranks: lines.join("\n") };
}

/** How the compact table is shipped: its JSON, brotli-compressed, in base64. */
export interface PackedRanks {
  readonly brotliBase64: string;
}

/**
 * The compact table as the bundles carry it. Its 70 KB of JSON (base64 tokens) compress to 38 KB
 * even in base64: a third of the react step's bundle saved, and a string literal costs the cold
 * start less to parse than the object did. It is unpacked on the first count (about a millisecond).
 */
export function packCompactRanks(ranks: TiktokenBPE): PackedRanks {
  const json = Buffer.from(JSON.stringify(ranks), "utf8");
  const packed = brotliCompressSync(json, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
  return { brotliBase64: packed.toString("base64") };
}

/** The table packCompactRanks packed. */
export function unpackCompactRanks(packed: PackedRanks): TiktokenBPE {
  return JSON.parse(
    brotliDecompressSync(Buffer.from(packed.brotliBase64, "base64")).toString("utf8"),
  ) as TiktokenBPE;
}
