import { describe, expect, it } from "vitest";
import { DEFAULT_CONTEXT_SETTINGS } from "../../../../lambdas/core/models/context/context-settings";
import { stableGoalBlock } from "../../../../lambdas/core/models/context/goal-prefix";
import { packContext } from "../../../../lambdas/core/models/context/pack";
import { toolResultText } from "../../../../lambdas/core/models/context/step-history";
import { countTokens } from "../../../../lambdas/core/models/context/tokenizer";
import type { ToolResultBlock } from "../../../../lambdas/core/ports/model-client";
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
    expect(cachePoints(claude)).toBe(2);
    expect(claude.messages.at(-1)?.content.at(-1)).toEqual({ text: "State." });
    expect(cachePoints(scripted)).toBe(0);
    expect(claude.totalTokens).toBeGreaterThan(claude.prefixTokens);
  });
});
