import {
  BedrockRuntimeClient,
  type ContentBlock,
  ConverseCommand,
  type Message,
} from "@aws-sdk/client-bedrock-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BedrockEndpoint, startBedrockEndpoint } from "../../lib/local/bedrock/bedrock-endpoint";
import { turnOfAnswer } from "../../lib/local/bedrock/fixture-recorder";
import { parseModelFixture } from "../../lib/local/bedrock/model-fixtures";
import { fixturesFolder, LOCAL_CREDENTIALS } from "./support";

/** A recording as `--record` writes it: the real model's signature, a turn without thinking. */
const RECORDED = {
  recordedFrom: { model: "global.anthropic.claude-sonnet-5-5", recordedAt: "2026-12-01T10:00:00.000Z" },
  reason: [
    {
      toolUse: { name: "workspace_list", input: {}, toolUseId: "tooluse_real_1" },
      reasoning: "",
      signature: "EqQBCkgIBxABGAIiQL-real-service-signature",
      stopReason: "tool_use",
      usage: { inputTokens: 2100, outputTokens: 310, cacheReadInputTokens: 1024 },
    },
    { text: "Done.", stopReason: "end_turn", usage: { inputTokens: 2300, outputTokens: 12 } },
  ],
};

const TOOLS = {
  tools: [{ toolSpec: { name: "workspace_list", inputSchema: { json: { type: "object" } } } }],
};
const FIRST: Message = { role: "user", content: [{ text: "List the workspace." }] };

describe("a recorded fixture on the strict endpoint", () => {
  let endpoint: BedrockEndpoint;
  let client: BedrockRuntimeClient;
  let fixtures: ReturnType<typeof fixturesFolder>;

  const converse = (messages: Message[], call: number, role = "reason", modelId = "scripted:recorded") =>
    client.send(
      new ConverseCommand({
        modelId,
        messages,
        toolConfig: TOOLS,
        requestMetadata: { goalId: "g-replay", role, call: String(call) },
      }),
    );

  beforeAll(async () => {
    fixtures = fixturesFolder({ "recorded.json": RECORDED });
    endpoint = await startBedrockEndpoint({ fixturesDir: fixtures.dir });
    client = new BedrockRuntimeClient({
      endpoint: endpoint.url,
      region: "us-east-1",
      credentials: LOCAL_CREDENTIALS,
      maxAttempts: 1,
    });
  });

  afterAll(async () => {
    client?.destroy();
    await endpoint?.close();
    fixtures?.cleanup();
  });

  it("serves the recorded block verbatim and nothing generated, and takes it back byte for byte", async () => {
    // Act
    const first = await converse([FIRST], 0);
    const answer = first.output?.message?.content ?? [];
    const results: Message = {
      role: "user",
      content: [{ toolResult: { toolUseId: "tooluse_real_1", content: [{ text: "[]" }] } }],
    };
    const second = await converse([FIRST, { role: "assistant", content: answer }, results], 1);

    // Assess
    expect(answer[0]).toEqual({
      reasoningContent: {
        reasoningText: { text: "", signature: "EqQBCkgIBxABGAIiQL-real-service-signature" },
      },
    });
    expect(first.usage).toMatchObject({ inputTokens: 2100, outputTokens: 310, cacheReadInputTokens: 1024 });
    // The second recorded turn had no thinking: none is made up for it
    expect(second.output?.message?.content).toEqual([{ text: "Done." }]);
  });

  it.each([
    [
      "an edited signature",
      (block: ContentBlock) => sign(block, "EqQBCkgIBxABGAIiQL-forged"),
      /Invalid `signature`/,
    ],
    ["an edited text", (block: ContentBlock) => withText(block, "I changed my mind."), /Invalid `signature`/],
  ])("refuses the recorded block with %s", async (_what, edit, expected) => {
    // Prepare
    const first = await converse([FIRST], 0);
    const [reasoning, ...rest] = first.output?.message?.content ?? [];
    if (reasoning === undefined) throw new Error("no reasoning block");
    const results: Message = {
      role: "user",
      content: [{ toolResult: { toolUseId: "tooluse_real_1", content: [{ text: "[]" }] } }],
    };

    // Act / Assess
    await expect(
      converse([FIRST, { role: "assistant", content: [edit(reasoning), ...rest] }, results], 1),
    ).rejects.toMatchObject({ name: "ValidationException", message: expect.stringMatching(expected) });
  });

  it("refuses the recorded block in another role's conversation", async () => {
    // Prepare
    const first = await converse([FIRST], 0);
    const results: Message = {
      role: "user",
      content: [{ toolResult: { toolUseId: "tooluse_real_1", content: [{ text: "[]" }] } }],
    };

    // Act / Assess
    await expect(
      converse(
        [FIRST, { role: "assistant", content: first.output?.message?.content ?? [] }, results],
        0,
        "judge",
      ),
    ).rejects.toMatchObject({ message: expect.stringMatching(/recorded for role reason/) });
  });

  it("refuses a signed block sent to an openai: model (a block goes only to its own model)", async () => {
    // Prepare
    const first = await converse([FIRST], 0);
    const results: Message = {
      role: "user",
      content: [{ toolResult: { toolUseId: "tooluse_real_1", content: [{ text: "[]" }] } }],
    };

    // Act / Assess
    await expect(
      converse(
        [FIRST, { role: "assistant", content: first.output?.message?.content ?? [] }, results],
        1,
        "reason",
        "openai:llama3.1",
      ),
    ).rejects.toMatchObject({
      name: "ValidationException",
      message: expect.stringMatching(/signed reasoning block was made by another model/),
    });
  });
});

describe("a Converse answer as a recorded turn", () => {
  it("keeps the first reasoning block's text and signature, the tool calls with their ids, stop reason and usage", () => {
    // Act
    const turn = turnOfAnswer({
      output: {
        message: {
          role: "assistant",
          content: [
            { reasoningContent: { reasoningText: { text: "Two files.", signature: "sig-1" } } },
            { text: "Reading both." },
            { toolUse: { toolUseId: "t1", name: "workspace_read", input: { path: "a" } } },
            { toolUse: { toolUseId: "t2", name: "workspace_read", input: { path: "b" } } },
          ],
        },
      },
      stopReason: "tool_use",
      usage: { inputTokens: 10, outputTokens: 20, totalTokens: 30, cacheWriteInputTokens: 5 },
      metrics: { latencyMs: 812 },
    });

    // Assess
    expect(turn).toEqual({
      text: "Reading both.",
      toolUse: [
        { name: "workspace_read", input: { path: "a" }, toolUseId: "t1" },
        { name: "workspace_read", input: { path: "b" }, toolUseId: "t2" },
      ],
      reasoning: "Two files.",
      signature: "sig-1",
      stopReason: "tool_use",
      usage: { inputTokens: 10, outputTokens: 20, cacheWriteInputTokens: 5 },
    });
  });

  it("keeps a redacted block's bytes, and the file format refuses redactedContent without redacted", () => {
    // Act
    const turn = turnOfAnswer({
      output: {
        message: { content: [{ reasoningContent: { redactedContent: "AAECAw==" } }, { text: "ok" }] },
      },
      stopReason: "end_turn",
      usage: { inputTokens: 1, outputTokens: 2 },
    });

    // Assess
    expect(turn).toMatchObject({ redacted: true, redactedContent: "AAECAw==", text: "ok" });
    expect(() =>
      parseModelFixture("f.json", JSON.stringify({ reason: [{ text: "x", redactedContent: "AAECAw==" }] })),
    ).toThrow(/reason\.0\.redactedContent: redactedContent holds a redacted block's bytes/);
  });
});

function sign(block: ContentBlock, signature: string): ContentBlock {
  const text = block.reasoningContent?.reasoningText;
  return { reasoningContent: { reasoningText: { text: text?.text ?? "", signature } } };
}

function withText(block: ContentBlock, text: string): ContentBlock {
  const signature = block.reasoningContent?.reasoningText?.signature ?? "";
  return { reasoningContent: { reasoningText: { text, signature } } };
}
