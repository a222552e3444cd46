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
