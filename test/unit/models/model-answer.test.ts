import { describe, expect, it } from "vitest";
import { answersOf, jsonObjectIn, toolUsesOf, turnText } from "../../../lambdas/core/models/model-answer";
import type { ModelTurn } from "../../../lambdas/core/ports/model-client";

const USAGE = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };

function turn(content: ModelTurn["content"]): ModelTurn {
  return { modelId: "scripted:answers", stopReason: "end_turn", content, usage: USAGE };
}

const call = (name: string, input: Record<string, string | number>, toolUseId = `tooluse_${name}`) => ({
  toolUse: { toolUseId, name, input },
});

describe("reading a model's answer", () => {
  it("joins a turn's text blocks and lists its tool calls in the model's order", () => {
    // Prepare
    const answer = turn([{ text: "First." }, call("b", {}), { text: "Second." }, call("a", { x: 1 })]);

    // Act
    const text = turnText(answer);
    const spaced = turnText(answer, " ");
    const calls = toolUsesOf(answer).map((use) => use.name);

    // Assess
    expect(text).toBe("First.\nSecond.");
    expect(spaced).toBe("First. Second.");
    expect(calls).toEqual(["b", "a"]);
  });

  it("finds the JSON object in text with a fence and chatter around it, or says why there is none", () => {
    // Act
    const fenced = jsonObjectIn('Here you are:\n```json\n{"a": {"b": 1}}\n```\nDone.');
    const none = jsonObjectIn("No JSON here.");
    const broken = jsonObjectIn("{ not json }");

    // Assess
    expect(fenced).toEqual({ value: { a: { b: 1 } } });
    expect(none).toEqual({ problem: "no JSON object in the answer" });
    expect(broken).toEqual({ problem: expect.stringMatching(/JSON/) });
  });

  it("offers a role's answers as the tool's calls first, then the JSON in the text, and nothing else", () => {
    // Prepare
    const answer = turn([
      { text: 'I would pick {"pattern": "react"}' },
      call("other_tool", { pattern: "reflexion" }),
      call("choose", { pattern: "plan_execute" }),
    ]);

    // Act
    const answers = answersOf(answer, "choose");
    const onlyText = answersOf(turn([{ text: "nothing structured" }]), "choose");

    // Assess
    expect(answers).toEqual([{ pattern: "plan_execute" }, { pattern: "react" }]);
    expect(onlyText).toEqual([]);
  });
});
