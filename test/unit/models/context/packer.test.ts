import { describe, expect, it } from "vitest";
import { DEFAULT_CONTEXT_SETTINGS } from "../../../../lambdas/core/models/context/context-settings";
import { stableGoalBlock } from "../../../../lambdas/core/models/context/goal-prefix";
import { packContext } from "../../../../lambdas/core/models/context/pack";
import { toolResultText } from "../../../../lambdas/core/models/context/step-history";
import { countTokens } from "../../../../lambdas/core/models/context/tokenizer";
import type { ContentBlock, Message, ToolResultBlock } from "../../../../lambdas/core/ports/model-client";
import type { StepRecord } from "../../../../lambdas/core/ports/step-log";
import { calls, newGoal, reactSpec, T0 } from "../../loop/support";

const CLAUDE = "anthropic.claude-sonnet-4-5-20250929-v1:0";

function aGoal() {
  return newGoal(reactSpec(), { goalId: "g-context" }).record;
}

function aStep(
  step: number,
  name: string,
  input: Record<string, string>,
  result: ToolResultBlock["content"],
) {
  const turn = calls(name, input);
  const toolUse = turn.content.find((block) => "toolUse" in block);
  const toolUseId = toolUse && "toolUse" in toolUse ? toolUse.toolUse.toolUseId : "missing";
  const record: StepRecord = {
    goalId: "g-context",
    step,
    runId: "r1",
    iteration: step - 1,
    turn,
    toolResults: [{ toolUseId, status: "success", content: result }],
    observations: { artifacts: [], toolResults: [] },
    at: T0.toISOString(),
  };
  return { record, toolUseId };
}

function toolResults(messages: ReturnType<typeof packContext>["messages"]): ToolResultBlock[] {
  return messages.flatMap((message) =>
    message.content.flatMap((block) => ("toolResult" in block ? [block.toolResult] : [])),
  );
}

describe("packContext", () => {
  it("inlines no tool result above the bound: a large one becomes a reference to its artifact", () => {
    // Prepare
    const settings = { ...DEFAULT_CONTEXT_SETTINGS, toolResultTokens: 200 };
    const big = "log line with some words in it\n".repeat(400);
    const read = aStep(1, "workspace_read", { path: "logs/build.log" }, [{ json: { content: big } }]);
    const fetched = aStep(2, "http_request", { method: "GET", url: "https://example.com" }, [{ text: big }]);
    const small = aStep(3, "workspace_list", {}, [{ json: { files: ["a.md"] } }]);

    // Act
    const packed = packContext({
      modelId: CLAUDE,
      instructions: "Instructions.",
      goalBlock: stableGoalBlock(aGoal()),
      history: { steps: [read.record, fetched.record, small.record] },
      state: "State.",
      settings,
    });

    // Assess
    const results = toolResults(packed.messages);
    expect(results).toHaveLength(3);
    for (const result of results) {
      expect(countTokens(toolResultText(result))).toBeLessThanOrEqual(settings.toolResultTokens);
    }
    const byId = new Map(results.map((result) => [result.toolUseId, result]));
    expect(byId.get(read.toolUseId)?.content).toEqual([
      {
        json: expect.objectContaining({
          omitted: expect.objectContaining({ artifact: "logs/build.log", boundTokens: 200 }),
        }),
      },
    ]);
    expect(toolResultText(byId.get(fetched.toolUseId) as ToolResultBlock)).toMatch(/Repeat the call/);
    expect(byId.get(small.toolUseId)?.content).toEqual([{ json: { files: ["a.md"] } }]);
  });

  it("inlines no tool input above the bound: a 600 KB file the model wrote is cut and pointed at", () => {
    // Prepare
    const settings = { ...DEFAULT_CONTEXT_SETTINGS, toolResultTokens: 200 };
    const page = `<html>${"<p>row</p>".repeat(60_000)}</html>`;
    const written = aStep(1, "workspace_write", { path: "site/index.html", content: page }, [
      { json: { path: "site/index.html", version: 1 } },
    ]);
    const small = aStep(2, "workspace_write", { path: "a.md", content: "short" }, [{ json: { version: 1 } }]);

    // Act
    const packed = packContext({
      modelId: CLAUDE,
      instructions: "Instructions.",
      goalBlock: stableGoalBlock(aGoal()),
      history: { steps: [written.record, small.record] },
      state: "State.",
      settings,
    });

    // Assess
    const inputs = packed.messages.flatMap((message) =>
      message.content.flatMap((block) => ("toolUse" in block ? [block.toolUse] : [])),
    );
    expect(inputs.map((call) => call.toolUseId)).toEqual([written.toolUseId, small.toolUseId]);
    const content = JSON.stringify(inputs[0]?.input);
    expect(content.length).toBeLessThan(1000);
    expect(content).toContain(
      `${page.length} characters omitted from the prompt; the full text is the workspace file 'site/index.html'`,
    );
    expect(inputs[1]?.input).toEqual({ path: "a.md", content: "short" });
  });

  it("points at the artifact Act stored an overflowing output in", () => {
    // Prepare
    const settings = { ...DEFAULT_CONTEXT_SETTINGS, toolResultTokens: 64 };
    const head = "x ".repeat(500);
    const step = aStep(1, "http_request", { method: "GET", url: "https://example.com" }, [
      { json: { outputTooLarge: { bytes: 90_000, path: ".artifacts/0-abc.txt" }, head } },
    ]);

    // Act
    const packed = packContext({
      modelId: CLAUDE,
      instructions: "Instructions.",
      goalBlock: "GOAL",
      history: { steps: [step.record] },
      state: "State.",
      settings,
    });

    // Assess
    const [result] = toolResults(packed.messages);
    expect(result?.content[0]).toMatchObject({ json: { omitted: { artifact: ".artifacts/0-abc.txt" } } });
  });

  it("puts cache points after the prefix and after the history only for models that cache", () => {
    // Prepare
    const step = aStep(1, "workspace_list", {}, [{ json: { files: [] } }]);
    const input = {
      instructions: "Instructions.",
      goalBlock: "GOAL",
      history: { steps: [step.record] },
      state: "State.",
    };

    // Act
    const claude = packContext({ ...input, modelId: `us.${CLAUDE}` });
    const scripted = packContext({ ...input, modelId: "scripted:fixture" });

    // Assess
    const cachePoints = (packed: typeof claude) =>
      [...packed.system, ...packed.messages.flatMap((message) => message.content)].filter(
        (block) => "cachePoint" in block,
      ).length;
    expect(claude.system.at(-1)).toEqual({ cachePoint: { type: "default" } });
    // The step logged before conversations were kept: nothing of the history was cached before, so
    // only the end is marked, for the next call.
    expect(cachePoints(claude)).toBe(2);
    expect(claude.messages.at(-1)?.content.slice(-2)).toEqual([
      { text: "State." },
      { cachePoint: { type: "default" } },
    ]);
    expect(cachePoints(scripted)).toBe(0);
    expect(claude.totalTokens).toBeGreaterThan(claude.prefixTokens);
  });

  describe("the conversation a prompt continues", () => {
    const REASONING: ContentBlock = {
      reasoningContent: { reasoningText: { text: "Read the log first.", signature: "c2lnbmVk" } },
    };
    const base = { modelId: CLAUDE, instructions: "Instructions.", goalBlock: "GOAL (revision 1)" };
    const withoutCachePoints = (messages: readonly Message[]) =>
      messages.map((message) => ({
        ...message,
        content: message.content.filter((block) => !("cachePoint" in block)),
      }));

    /** A first call, and its step: the turn thought first, and wrote a page too large for the bound. */
    function firstCallAndStep() {
      const first = packContext({ ...base, history: { steps: [] }, state: "State 1." });
      const page = "<p>row</p>".repeat(2_000);
      const { record } = aStep(1, "workspace_write", { path: "site/index.html", content: page }, [
        { json: { version: 1 } },
      ]);
      const step = {
        ...record,
        turn: { ...record.turn, content: [REASONING, ...record.turn.content] },
        conversation: first.conversation,
      };
      return { first, step, page };
    }

    it("shows the turns of its own conversation verbatim, after the message each answered: the prompt only grows", () => {
      // Prepare
      const settings = { ...DEFAULT_CONTEXT_SETTINGS, toolResultTokens: 200 };
      const { first, step } = firstCallAndStep();

      // Act
      const second = packContext({ ...base, history: { steps: [step] }, state: "State 2.", settings });

      // Assess: the first call's messages, then the turn as the model gave it (reasoning first, the
      // page in full), then its result with the new state
      expect(first.conversation).toEqual({ key: expect.any(String), prompt: "State 1." });
      expect(second.conversation.key).toBe(first.conversation.key);
      const messages = withoutCachePoints(second.messages);
      expect(messages.slice(0, first.messages.length)).toEqual(withoutCachePoints(first.messages));
      expect(messages[1]).toEqual({ role: "assistant", content: step.turn.content });
      expect(messages[2]?.content.at(-1)).toEqual({ text: "State 2." });
    });

    it.each([
      ["a revision changed the goal block", { goalBlock: "GOAL (revision 2)" }],
      ["the role's model changed", { modelId: `us.${CLAUDE}` }],
      ["a new tool was granted", { tools: [{ name: "notify", description: "Notify.", inputSchema: {} }] }],
    ])("drops the reasoning of turns made before %s, and bounds their tool inputs", (_what, change) => {
      // Prepare
      const settings = { ...DEFAULT_CONTEXT_SETTINGS, toolResultTokens: 200 };
      const { first, step, page } = firstCallAndStep();

      // Act
      const next = packContext({
        ...base,
        ...change,
        history: { steps: [step] },
        state: "State 2.",
        settings,
      });

      // Assess
      expect(next.conversation.key).not.toBe(first.conversation.key);
      const assistant = next.messages.find((message) => message.role === "assistant");
      expect(assistant?.content.some((block) => "reasoningContent" in block)).toBe(false);
      expect(JSON.stringify(assistant)).toContain(`${page.length} characters omitted from the prompt`);
      // The message the turn answered is still shown before it.
      expect(next.messages[0]?.content).toEqual([{ text: "State 1." }]);
    });

    it("drops the reasoning after a compaction: the summary opens another conversation", () => {
      // Prepare
      const { first, step } = firstCallAndStep();
      const later = { ...step, step: 9, iteration: 8 };

      // Act
      const next = packContext({
        ...base,
        history: { compaction: { throughStep: 8, text: "Steps 1 to 8: wrote drafts." }, steps: [later] },
        state: "State 10.",
      });

      // Assess
      expect(next.conversation.key).not.toBe(first.conversation.key);
      expect(next.messages[0]?.content[0]).toEqual({
        text: expect.stringContaining("Steps 1 to 8: wrote drafts."),
      });
      expect(JSON.stringify(next.messages)).not.toContain("reasoningContent");
    });

    it("counts a reasoning block sent back in the prompt's tokens", () => {
      // Prepare
      const { step } = firstCallAndStep();
      const long: ContentBlock = {
        reasoningContent: { reasoningText: { text: "thought ".repeat(2_000), signature: "s".repeat(4_000) } },
      };
      const thinking = { ...step, turn: { ...step.turn, content: [long, ...step.turn.content.slice(1)] } };

      // Act
      const short = packContext({ ...base, history: { steps: [step] }, state: "State 2." });
      const heavy = packContext({ ...base, history: { steps: [thinking] }, state: "State 2." });

      // Assess: about (16,000 + 4,000) / 4 more
      expect(heavy.totalTokens - short.totalTokens).toBeGreaterThan(4_500);
    });
  });
});
