import { readFileSync } from "node:fs";
import { join } from "node:path";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import { describe, expect, it } from "vitest";
import {
  COMPACT_RANK_COUNT,
  compactRanks,
  unpackCompactRanks,
} from "../../../../lambdas/core/models/context/compact-ranks";
import { countTokens, tokenCounter } from "../../../../lambdas/core/models/context/tokenizer";

const COMPACT_FILE = join(import.meta.dirname, "../../../../lambdas/core/models/context/cl100k-compact.json");

describe("the Lambdas' token counter", () => {
  it("ships the first merges of the installed cl100k_base (regenerate with bench/make-compact-ranks.ts)", () => {
    // Act
    const shipped = unpackCompactRanks(JSON.parse(readFileSync(COMPACT_FILE, "utf8")));

    // Assess
    expect(shipped).toEqual(compactRanks(cl100k, COMPACT_RANK_COUNT));
  });

  it("counts real BPE tokens, never fewer than full cl100k_base", () => {
    // Prepare
    const full = tokenCounter(cl100k);
    const texts = [
      "Write a short release summary for goal-loops 2.0 to summary.md in the workspace.",
      JSON.stringify({ path: "notes/step-12.md", sha256: "9f86d081884c7d659a2feaa0c55ad015", size: 42 }),
      "Déjà vu: 東京 <|endoftext|> 🚀",
    ];

    // Act + Assess
    for (const text of texts) {
      expect(countTokens(text)).toBeGreaterThanOrEqual(full(text));
      expect(countTokens(text)).toBeLessThan(text.length);
    }
    expect(full(texts[0] ?? "")).toBe(20);
    expect(countTokens("")).toBe(0);
  });
});
