import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../../lambdas/core/goal/canonical-json";
import { prefixHash } from "../../../lib/local/bedrock/reasoning-signatures";
import type { JsonObject, JsonValue } from "../../../lib/local/shared/cloud-assembly-model";

/** The prefix hash as its contract states it: SHA-256 of the prefix's canonical JSON, cache points left out. */
function referenceHash(request: JsonObject, messageCount: number): string {
  const withoutCachePoints = (blocks: JsonValue | undefined) =>
    Array.isArray(blocks)
      ? blocks.filter((block) => !(typeof block === "object" && block !== null && "cachePoint" in block))
      : [];
  const messages = Array.isArray(request.messages) ? request.messages : [];
  const toolConfig = request.toolConfig as JsonObject | undefined;
  const prefix: JsonValue = {
    system: withoutCachePoints(request.system),
    tools: withoutCachePoints(toolConfig?.tools),
    messages: messages.slice(0, messageCount).map((message) => {
      const { role, content } = message as JsonObject;
      return { role: role ?? null, content: withoutCachePoints(content) };
    }),
  };
  return createHash("sha256").update(canonicalJson(prefix), "utf8").digest("base64url");
}

const turn = (index: number): JsonValue[] => [
  {
    role: "assistant",
    content: [
      { reasoningContent: { reasoningText: { text: `thought ${index}`, signature: `sig.${index}` } } },
      {
        toolUse: {
          toolUseId: `t${index}`,
          name: "workspace_write",
          input: { path: "a.md", content: `draft ${index}` },
        },
      },
    ],
  },
  {
    role: "user",
    content: [
      { toolResult: { toolUseId: `t${index}`, content: [{ json: { z: 1, a: [index] } }] } },
      { cachePoint: { type: "default" } },
    ],
  },
];

const request: JsonObject = {
  system: [{ text: "You are an agent." }, { cachePoint: { type: "default" } }],
  toolConfig: {
    tools: [{ toolSpec: { name: "workspace_write", inputSchema: { json: { type: "object" } } } }],
  },
  messages: [
    { role: "user", content: [{ text: "Write a.md" }] },
    ...Array.from({ length: 6 }, (_, i) => turn(i)).flat(),
  ],
};

describe("prefixHash", () => {
  it("equals the hash of the prefix's canonical JSON for every prefix, asked in any order", () => {
    // Prepare
    const counts = [0, 1, 3, 4, 8, 13, 13, 2, 20, 13, 0];

    // Act
    const hashes = counts.map((count) => prefixHash(request, count));

    // Assess
    expect(hashes).toEqual(counts.map((count) => referenceHash(request, count)));
    expect(new Set(hashes).size).toBe(7);
  });

  it("ignores where the cache points sit, and changes with any message before the count", () => {
    // Prepare
    const moved: JsonObject = { ...request, system: [{ text: "You are an agent." }] };
    const edited: JsonObject = {
      ...request,
      messages: [
        { role: "user", content: [{ text: "Write b.md" }] },
        ...(request.messages as JsonValue[]).slice(1),
      ],
    };

    // Act + Assess
    expect(prefixHash(moved, 5)).toBe(prefixHash(request, 5));
    expect(prefixHash(edited, 5)).not.toBe(prefixHash(request, 5));
    expect(prefixHash(edited, 0)).toBe(prefixHash(request, 0));
  });
});
