import { Tiktoken, type TiktokenBPE } from "js-tiktoken/lite";
import packedRanks from "./cl100k-compact.json" with { type: "json" };
import { unpackCompactRanks } from "./compact-ranks";

/** Counts the tokens of a text. Every prompt size the packer compares with a budget comes from one. */
export type TokenCounter = (text: string) => number;

/** Characters of text whose counts a counter remembers (least recently used go first). */
const MEMO_CHARS = 4_000_000;

/**
 * A counter on a js-tiktoken rank table. Special-token spellings in the text are counted as plain
 * text (a tool result may contain `<|endoftext|>`; it must not throw or count as one token).
 * Counts are remembered per text: a prompt is mostly the blocks of the previous call's prompt, and
 * a warm Lambda counts only what is new (BPE costs about 5 µs a token here).
 */
export function tokenCounter(ranks: TiktokenBPE | (() => TiktokenBPE)): TokenCounter {
  let encoder: Tiktoken | undefined;
  const memo = new Map<string, number>();
  let memoChars = 0;
  return (text) => {
    if (text === "") return 0;
    const known = memo.get(text);
    if (known !== undefined) {
      memo.delete(text);
      memo.set(text, known);
      return known;
    }
    // Built on first use, not at import: a Lambda that never packs a prompt never pays for it.
    encoder ??= new Tiktoken(typeof ranks === "function" ? ranks() : ranks);
    const count = encoder.encode(text, [], []).length;
    if (text.length <= MEMO_CHARS / 4) {
      memo.set(text, count);
      memoChars += text.length;
      for (const [oldest] of memo) {
        if (memoChars <= MEMO_CHARS) break;
        memo.delete(oldest);
        memoChars -= oldest.length;
      }
    }
    return count;
  };
}

/**
 * The Lambdas' counter: byte-level BPE with the first 8,192 merges of cl100k_base (compact-ranks.ts
 * says why). It never counts fewer tokens than full cl100k_base; the bench measures with the full table.
 * The table ships packed and is unpacked with the encoder, on the first count.
 */
export const countTokens: TokenCounter = tokenCounter(() => unpackCompactRanks(packedRanks));
