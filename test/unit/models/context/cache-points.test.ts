import { describe, expect, it } from "vitest";
import {
  DEFAULT_CONTEXT_SETTINGS,
  minCacheableTokens,
  supportsHourCacheTtl,
} from "../../../../lambdas/core/models/context/context-settings";
import { packContext } from "../../../../lambdas/core/models/context/pack";
import { prefixCacheTtl } from "../../../../lambdas/core/models/context/pack-goal";
import type { ContentBlock, Message } from "../../../../lambdas/core/ports/model-client";
import type { StepRecord } from "../../../../lambdas/core/ports/step-log";
import { calls, newGoal, reactSpec, T0 } from "../../loop/support";

const SONNET_5_5 = "global.anthropic.claude-sonnet-5-5";
/** Documented for the one-hour TTL (Bedrock user guide, Prompt caching). */
const HAIKU_4_5 = "global.anthropic.claude-haiku-4-5-20251001-v1:0";
const REASONING: ContentBlock = {
  reasoningContent: { reasoningText: { text: "Write the next finding.", signature: "c2lnbmVk" } },
};
const base = { instructions: "Instructions.", goalBlock: "GOAL (revision 1)" };

/** Where the cache points of a message list are: `[message index, block index]`. */
function cachePointsOf(messages: readonly Message[]): [number, number][] {
  return messages.flatMap((message, i) =>
    message.content.flatMap((block, j): [number, number][] => ("cachePoint" in block ? [[i, j]] : [])),
  );
}

/** The step a packed call made: its turn (reasoning first), its result, the conversation it continued. */
function stepOf(step: number, conversation: ReturnType<typeof packContext>["conversation"]): StepRecord {
  const turn = calls("workspace_write", { path: "report.md", content: `finding ${step}` });
  const toolUse = turn.content.find((block) => "toolUse" in block);
  const toolUseId = toolUse && "toolUse" in toolUse ? toolUse.toolUse.toolUseId : "missing";
  return {
    goalId: "g-cache",
    step,
    runId: "r1",
    iteration: step - 1,
    turn: { ...turn, content: [REASONING, ...turn.content] },
    conversation,
    toolResults: [{ toolUseId, status: "success", content: [{ json: { version: step } }] }],
    observations: { artifacts: [], toolResults: [] },
    at: T0.toISOString(),
  };
}

/** Three calls of one conversation on `modelId`: each logs its step, the next packs them all. */
function threeCalls(modelId: string, cacheTtl?: "1h") {
  const packs: ReturnType<typeof packContext>[] = [];
  const steps: StepRecord[] = [];
  for (let call = 0; call < 3; call += 1) {
    const packed = packContext({
      ...base,
      modelId,
      history: { steps },
      state: `State ${call + 1}.`,
      ...(cacheTtl ? { cacheTtl } : {}),
    });
    packs.push(packed);
    steps.push(stepOf(call + 1, packed.conversation));
  }
  return packs;
}

const withoutCachePoints = (messages: readonly Message[]) =>
  messages.map((message) => ({
    ...message,
    content: message.content.filter((block) => !("cachePoint" in block)),
  }));

describe("the prompt cache points", () => {
  it("marks the prefix, the end of the previous call's prompt and the end: three, within Bedrock's four", () => {
    // Act
    const [first, second, third] = threeCalls(SONNET_5_5);

    // Assess: the first call has no history to read, so it marks only its end
    expect(first?.system.at(-1)).toEqual({ cachePoint: { type: "default" } });
    expect(cachePointsOf(first?.messages ?? [])).toEqual([[0, 1]]);
    // Each later call repeats the previous one and marks where it ended, then its own end.
    for (const [previous, current] of [
      [first, second],
      [second, third],
    ] as const) {
      const before = withoutCachePoints(previous?.messages ?? []);
      const now = current?.messages ?? [];
      expect(withoutCachePoints(now.slice(0, before.length))).toEqual(before);
      const lastBefore = before.length - 1;
      expect(cachePointsOf(now)).toEqual([
        [lastBefore, now[lastBefore]?.content.length ? now[lastBefore].content.length - 1 : -1],
        [now.length - 1, (now.at(-1)?.content.length ?? 0) - 1],
      ]);
      const total = (current?.system.length ?? 0) + now.flatMap((message) => message.content).length;
      expect(total).toBeGreaterThan(0);
    }
    const inSystem = (third?.system ?? []).filter((block) => "cachePoint" in block).length;
    expect(inSystem + cachePointsOf(third?.messages ?? []).length).toBe(3);
  });

  it("marks only the end after a compaction: the summary opens another conversation, nothing before it was cached", () => {
    // Prepare
    const [, second] = threeCalls(SONNET_5_5);
    const step = stepOf(2, second?.conversation ?? { key: "k", prompt: "p" });

    // Act
    const compacted = packContext({
      ...base,
      modelId: SONNET_5_5,
      history: { compaction: { throughStep: 1, text: "Wrote finding 1." }, steps: [step] },
      state: "State 3.",
    });

    // Assess
    expect(cachePointsOf(compacted.messages)).toEqual([
      [compacted.messages.length - 1, (compacted.messages.at(-1)?.content.length ?? 0) - 1],
    ]);
  });

  it("keeps the summary's text the same on every call between two compactions", () => {
    // Prepare
    const compaction = { throughStep: 8, text: "Steps 1 to 8: eight findings written." };
    const [, second, third] = threeCalls(SONNET_5_5);
    const ninth = stepOf(9, second?.conversation ?? { key: "k", prompt: "p" });
    const tenth = stepOf(10, third?.conversation ?? { key: "k", prompt: "p" });

    // Act
    const calls = [[ninth], [ninth, tenth]].map((steps) =>
      packContext({ ...base, modelId: SONNET_5_5, history: { compaction, steps }, state: "State." }),
    );

    // Assess
    const openings = calls.map((packed) => packed.messages[0]?.content[0]);
    expect(openings[0]).toEqual(openings[1]);
  });

  it("asks an hour for the stable prefix of a goal that waits on people, on the models that take it", () => {
    // Prepare
    const gated = newGoal(reactSpec({ approval: { requireFor: ["workspace_write"] } }), { goalId: "g-1" });
    const ungated = newGoal(reactSpec(), { goalId: "g-2" });

    // Act
    const hour = threeCalls(HAIKU_4_5, prefixCacheTtl(gated.record));
    const unconfirmed = threeCalls(SONNET_5_5, prefixCacheTtl(gated.record));
    const nova = threeCalls("us.amazon.nova-pro-v1:0", prefixCacheTtl(gated.record));
    const plain = threeCalls(SONNET_5_5, prefixCacheTtl(ungated.record));
    const scripted = threeCalls("scripted:fixture", "1h");

    // Assess: only the prefix gets the hour (TTLs may not grow along the prompt); the history keeps 5 minutes
    expect(prefixCacheTtl(gated.record)).toBe("1h");
    expect(prefixCacheTtl(ungated.record)).toBeUndefined();
    expect(hour[2]?.system.at(-1)).toEqual({ cachePoint: { type: "default", ttl: "1h" } });
    for (const [, j] of cachePointsOf(hour[2]?.messages ?? [])) expect(j).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(hour[2]?.messages)).not.toContain('"ttl"');
    expect(nova[2]?.system.at(-1)).toEqual({ cachePoint: { type: "default" } });
    // Not yet documented for Claude Sonnet 5.5: no hour asked, so a gated goal never meets a 400
    expect(unconfirmed[2]?.system.at(-1)).toEqual({ cachePoint: { type: "default" } });
    expect(plain[2]?.system.at(-1)).toEqual({ cachePoint: { type: "default" } });
    expect(JSON.stringify(scripted)).not.toContain("cachePoint");
  });

  it("knows each default model's minimum cacheable prefix and which take an hour", () => {
    expect(minCacheableTokens(SONNET_5_5)).toBe(512);
    expect(minCacheableTokens("global.anthropic.claude-haiku-5-5")).toBe(4096);
    expect(minCacheableTokens("anthropic.claude-sonnet-4-20250514-v1:0")).toBe(1024);
    expect(minCacheableTokens("scripted:fixture")).toBeUndefined();
    expect(supportsHourCacheTtl(HAIKU_4_5)).toBe(true);
    expect(supportsHourCacheTtl("global.anthropic.claude-haiku-5-5")).toBe(false);
    expect(supportsHourCacheTtl(SONNET_5_5)).toBe(false);
    expect(supportsHourCacheTtl("anthropic.claude-sonnet-4-20250514-v1:0")).toBe(false);
    expect(supportsHourCacheTtl("us.amazon.nova-pro-v1:0", DEFAULT_CONTEXT_SETTINGS)).toBe(false);
  });
});
