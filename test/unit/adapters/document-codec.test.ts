import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  DOCUMENT_DICTIONARY,
  decodeDocument,
  encodeDocument,
} from "../../../lambdas/adapters/dynamodb/encoding/document-codec";
import { CorruptStoreItemError } from "../../../lambdas/adapters/shared/store-errors";

describe("the stored documents' encoding", () => {
  it("keeps its dictionary byte for byte: items written with it are read with it", () => {
    // A failure here means the dictionary changed: every item encoded with the old one is unreadable.
    // A new dictionary is a new record schema, with a constant of its own beside this one.
    const sha256 = createHash("sha256").update(DOCUMENT_DICTIONARY).digest("hex");
    expect({ bytes: DOCUMENT_DICTIONARY.length, sha256 }).toMatchInlineSnapshot(`
      {
        "bytes": 2847,
        "sha256": "4a1d825679e4d87209c4a4492ce13902c0cf6cd9cca9f9007b8ddf5929309c5b",
      }
    `);
  });

  it("gives back the same document, unicode and nesting included", () => {
    // Prepare
    const document = {
      goalId: "g-1",
      turn: { content: [{ reasoningContent: { reasoningText: { text: "pensé → ✓", signature: "c2ln" } } }] },
      usage: { inputTokens: 3243, costUsd: 0.0123 },
      empty: [],
      nothing: null,
    };

    // Act
    const encoded = encodeDocument(document);

    // Assess
    expect(encoded).toBeInstanceOf(Uint8Array);
    expect(decodeDocument(encoded, "a document")).toEqual(document);
  });

  it("is smaller than the JSON it encodes", () => {
    // Prepare: a step-record-like document, its field names repeated as every record repeats them.
    const step = {
      goalId: "g-5j33bztj0htn3kqe2sqtxgw9ex",
      toolResults: Array.from({ length: 5 }, (_, index) => ({
        toolUseId: `tooluse_${index}`,
        status: "success",
        content: [{ json: { path: `notes/${index}.md`, size: 100 + index, changed: true } }],
      })),
    };

    // Act
    const encoded = encodeDocument(step);

    // Assess
    expect(encoded.byteLength).toBeLessThan(Buffer.byteLength(JSON.stringify(step)) / 2);
  });

  it("names what it read when the bytes are no encoded document", () => {
    expect(() => decodeDocument(new Uint8Array([1, 2, 3, 4]), "step record of goal g")).toThrow(
      CorruptStoreItemError,
    );
    expect(() => decodeDocument(new Uint8Array([1, 2, 3, 4]), "step record of goal g")).toThrow(
      /step record of goal g/,
    );
  });
});
