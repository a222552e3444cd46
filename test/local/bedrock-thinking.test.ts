import {
  BedrockRuntimeClient,
  type ContentBlock,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
  type Message,
} from "@aws-sdk/client-bedrock-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BedrockModelClient } from "../../lambdas/adapters/bedrock/bedrock-model-client";
import type { ModelRequest } from "../../lambdas/core/ports/model-client";
import { type BedrockEndpoint, startBedrockEndpoint } from "../../lib/local/bedrock/bedrock-endpoint";
import { fixturesFolder, LOCAL_CREDENTIALS } from "./support";

const LIST = { toolUse: { name: "workspace_list", input: {} } };
const WRITE = { toolUse: { name: "workspace_write", input: { path: "a.md", content: "hi" } } };

const FIXTURES = {
  "thinker.json": {
    reason: [
      { ...LIST, reasoning: "I should see the files first." },
      { ...WRITE, reasoning: "Now the note." },
      { text: "Done." },
    ],
  },
  "other.json": { reason: [LIST, WRITE, { text: "Done." }] },
  "redacting.json": { reason: [{ ...LIST, redacted: true }, { text: "Done." }] },
  "plain.json": { thinking: false, reason: [LIST, { text: "Done." }] },
  "generated.json": { reason: [LIST, LIST] },
  "no-thoughts-allowed.json": { thinking: false, reason: [{ ...LIST, reasoning: "x" }] },
  "redacted-with-text.json": { reason: [{ ...LIST, redacted: true, reasoning: "x" }] },
};

const SYSTEM = [{ text: "You pursue goals." }];
const TOOLS: ConverseCommandInput["toolConfig"] = {
  tools: [
    { toolSpec: { name: "workspace_list", inputSchema: { json: { type: "object" } } } },
    { toolSpec: { name: "workspace_write", inputSchema: { json: { type: "object" } } } },
  ],
};
const ADAPTIVE = { thinking: { type: "adaptive", display: "summarized" }, output_config: { effort: "high" } };
const FIRST: Message = { role: "user", content: [{ text: "Write a note." }] };

describe("the local Bedrock endpoint's thinking (strict by default)", () => {
  let endpoint: BedrockEndpoint;
  let client: BedrockRuntimeClient;
  let fixtures: ReturnType<typeof fixturesFolder>;

  beforeAll(async () => {
    fixtures = fixturesFolder(FIXTURES);
    endpoint = await startBedrockEndpoint({ fixturesDir: fixtures.dir });
    client = new BedrockRuntimeClient({
      endpoint: endpoint.url,
      region: "us-east-1",
      credentials: LOCAL_CREDENTIALS,
      maxAttempts: 1,
    });
  });
  afterAll(async () => {
    client.destroy();
    await endpoint.close();
    fixtures.cleanup();
  });

  const converse = (
    modelId: string,
    meta: { goalId: string; call: number; role?: string },
    messages: Message[],
    extra: Partial<ConverseCommandInput> = {},
  ) =>
    client.send(
      new ConverseCommand({
        modelId,
        system: SYSTEM,
        toolConfig: TOOLS,
        messages,
        additionalModelRequestFields: ADAPTIVE,
        requestMetadata: { goalId: meta.goalId, role: meta.role ?? "reason", call: String(meta.call) },
        ...extra,
      }),
    );
  const failureOf = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error as Error,
    );
  const contentOf = (response: ConverseCommandOutput): ContentBlock[] =>
    response.output?.message?.content ?? [];
  const toolUseIdOf = (content: ContentBlock[]) => content.find((block) => block.toolUse)?.toolUse?.toolUseId;
  /** The user message that answers a turn's tool call. */
  const resultFor = (content: ContentBlock[]): Message => ({
    role: "user",
    content: [
      {
        toolResult: {
          toolUseId: toolUseIdOf(content),
          status: "success",
          content: [{ json: { files: [] } }],
        },
      },
    ],
  });

  /** The first call of a goal, and the history a second call sends back verbatim. */
  async function firstTurn(goalId: string, modelId = "scripted:thinker") {
    const first = await converse(modelId, { goalId, call: 0 }, [FIRST]);
    const turn = contentOf(first);
    return { turn, history: [FIRST, { role: "assistant" as const, content: turn }, resultFor(turn)] };
  }

  describe("answers", () => {
    it("start with a reasoning block: the fixture's text, signed", async () => {
      // Act
      const { turn } = await firstTurn("g-answer");

      // Assess
      expect(turn[0]?.reasoningContent?.reasoningText).toEqual({
        text: "I should see the files first.",
        signature: expect.stringMatching(/^[\w-]+\.[\w-]+$/),
      });
      expect(turn[1]?.toolUse).toMatchObject({ name: "workspace_list" });
    });

    it("carry an encrypted redactedContent block for a redacted turn, bytes no text starts with", async () => {
      // Act
      const { turn } = await firstTurn("g-redacted", "scripted:redacting");

      // Assess
      const bytes = turn[0]?.reasoningContent?.redactedContent;
      expect(bytes).toBeInstanceOf(Uint8Array);
      expect(Array.from(bytes?.subarray(0, 2) ?? [])).toEqual([0xff, 0x00]);
      expect(turn[0]?.reasoningContent?.reasoningText).toBeUndefined();
    });

    it('carry no reasoning for a fixture of a model that does not think ("thinking": false)', async () => {
      // Act
      const { turn } = await firstTurn("g-plain", "scripted:plain");

      // Assess
      expect(
        turn.map((block) => Object.keys(block).filter((key) => block[key as keyof ContentBlock])),
      ).toEqual([["toolUse"]]);
    });

    it("think longer at a higher effort, and count the thinking in the output tokens", async () => {
      // Act
      const low = await converse("scripted:generated", { goalId: "g-effort-low", call: 0 }, [FIRST], {
        additionalModelRequestFields: { ...ADAPTIVE, output_config: { effort: "low" } },
      });
      const high = await converse("scripted:generated", { goalId: "g-effort-high", call: 0 }, [FIRST]);

      // Assess
      const text = (response: ConverseCommandOutput) =>
        contentOf(response)[0]?.reasoningContent?.reasoningText?.text ?? "";
      expect(text(low)).toContain("calls workspace_list");
      expect(text(high).length).toBeGreaterThan(5 * text(low).length);
      expect(high.usage?.outputTokens ?? 0).toBeGreaterThan((low.usage?.outputTokens ?? 0) * 5);
    });

    it("think only after a tool result with between_tools (no up-front thinking)", async () => {
      // Act
      const between = { thinking: { type: "between_tools" }, output_config: { effort: "high" } };
      const first = await converse("scripted:generated", { goalId: "g-between", call: 0 }, [FIRST], {
        additionalModelRequestFields: between,
      });
      const history = [
        FIRST,
        { role: "assistant" as const, content: contentOf(first) },
        resultFor(contentOf(first)),
      ];
      const second = await converse("scripted:generated", { goalId: "g-between", call: 1 }, history, {
        additionalModelRequestFields: between,
      });

      // Assess
      expect(contentOf(first)[0]?.reasoningContent).toBeUndefined();
      expect(contentOf(second)[0]?.reasoningContent?.reasoningText?.text).toContain("reason call 1");
    });

    it.each([
      ["no-thoughts-allowed", /"thinking": false scripts a model that does not think/],
      ["redacted-with-text", /a redacted turn has no reasoning text/],
    ])("refuses a fixture that contradicts itself (%s)", async (name, message) => {
      // Act
      const failure = await failureOf(converse(`scripted:${name}`, { goalId: "g-bad", call: 0 }, [FIRST]));

      // Assess
      expect(failure).toMatchObject({ name: "ValidationException" });
      expect(failure?.message).toMatch(message);
    });
  });

  describe("the round trip", () => {
    it("takes the latest tool-use turn back verbatim, reasoning first", async () => {
      // Prepare
      const { history } = await firstTurn("g-verbatim");

      // Act
      const second = await converse("scripted:thinker", { goalId: "g-verbatim", call: 1 }, history);

      // Assess
      expect(contentOf(second)[0]?.reasoningContent?.reasoningText?.text).toBe("Now the note.");
    });

    it("refuses the turn without its reasoning block, in the service's words", async () => {
      // Prepare
      const { turn, history } = await firstTurn("g-dropped");
      const rebuilt = [FIRST, { role: "assistant" as const, content: turn.slice(1) }, resultFor(turn)];

      // Act
      const failure = await failureOf(
        converse("scripted:thinker", { goalId: "g-dropped", call: 1 }, rebuilt),
      );

      // Assess
      expect(history).toHaveLength(3);
      expect(failure).toMatchObject({ name: "ValidationException", $metadata: { httpStatusCode: 400 } });
      expect(failure?.message).toBe(
        "The model returned the following errors: messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking",
      );
    });

    it("refuses a reasoning block whose text was edited: the signature no longer holds", async () => {
      // Prepare
      const { turn } = await firstTurn("g-edited");
      const [reasoning, ...rest] = turn;
      const edited = {
        reasoningContent: {
          reasoningText: {
            text: "I should see the files first!",
            signature: reasoning?.reasoningContent?.reasoningText?.signature,
          },
        },
      } as ContentBlock;
      const history = [FIRST, { role: "assistant" as const, content: [edited, ...rest] }, resultFor(turn)];

      // Act
      const failure = await failureOf(converse("scripted:thinker", { goalId: "g-edited", call: 1 }, history));

      // Assess
      expect(failure?.message).toMatch(/messages\.1\.content\.0: Invalid `signature` in `thinking` block\.$/);
    });

    it("refuses a redacted block with one byte changed, and takes it back byte for byte", async () => {
      // Prepare
      const { turn, history } = await firstTurn("g-bytes", "scripted:redacting");
      const bytes = Uint8Array.from(turn[0]?.reasoningContent?.redactedContent ?? []);
      bytes[bytes.length - 1] = (bytes.at(-1) ?? 0) ^ 1;
      const tampered = [
        FIRST,
        {
          role: "assistant" as const,
          content: [{ reasoningContent: { redactedContent: bytes } }, ...turn.slice(1)],
        },
        resultFor(turn),
      ];

      // Act
      const failure = await failureOf(
        converse("scripted:redacting", { goalId: "g-bytes", call: 1 }, tampered),
      );
      const second = await converse("scripted:redacting", { goalId: "g-bytes", call: 1 }, history);

      // Assess
      expect(failure?.message).toMatch(/Invalid `signature` in `redacted_thinking` block/);
      expect(contentOf(second)).toContainEqual({ text: "Done." });
    });

    it("refuses a block sent to another model", async () => {
      // Prepare
      const { history } = await firstTurn("g-model");

      // Act
      const failure = await failureOf(converse("scripted:other", { goalId: "g-model", call: 1 }, history));

      // Assess
      expect(failure?.message).toMatch(
        /produced by model 'scripted:thinker', which 'scripted:other' cannot read/,
      );
    });

    it("refuses a block moved to another goal's conversation", async () => {
      // Prepare
      const { history } = await firstTurn("g-moved");

      // Act
      const failure = await failureOf(
        converse("scripted:thinker", { goalId: "g-elsewhere", call: 1 }, history),
      );

      // Assess
      expect(failure?.message).toMatch(/The block is bound to a different conversation/);
    });

    it("refuses a block whose conversation changed before it, and takes the turn once the block is left out", async () => {
      // Prepare: the system prompt is edited (a revision) after the turn was made
      const { turn, history } = await firstTurn("g-prefix");
      const edited = { system: [{ text: "You pursue goals. Revised." }] };
      const withoutBlock = [FIRST, { role: "assistant" as const, content: turn.slice(1) }, resultFor(turn)];

      // Act
      const kept = await failureOf(
        converse("scripted:thinker", { goalId: "g-prefix", call: 1 }, history, edited),
      );
      const dropped = await converse(
        "scripted:thinker",
        { goalId: "g-prefix", call: 1 },
        withoutBlock,
        edited,
      );

      // Assess
      expect(kept?.message).toMatch(
        /messages\.1\.content\.0: Invalid `signature` in `thinking` block\. The block is bound to a different conversation/,
      );
      expect(contentOf(dropped)[0]?.reasoningContent?.reasoningText?.text).toBe("Now the note.");
    });

    it("refuses reasoning outside its place: after the turn's text, or in a user message", async () => {
      // Prepare
      const { turn } = await firstTurn("g-place");
      const [reasoning, ...rest] = turn as [ContentBlock, ...ContentBlock[]];
      const after = [FIRST, { role: "assistant" as const, content: [...rest, reasoning] }, resultFor(turn)];
      const inUser = [{ role: "user" as const, content: [reasoning, { text: "Go." }] }];

      // Act
      const late = await failureOf(converse("scripted:thinker", { goalId: "g-place", call: 1 }, after));
      const user = await failureOf(converse("scripted:thinker", { goalId: "g-place", call: 1 }, inUser));

      // Assess
      expect(late?.message).toMatch(
        /the first block must be `thinking` or `redacted_thinking`\. Found `tool_use`/,
      );
      expect(user?.message).toMatch(/only taken in assistant messages/);
    });

    it("goes through the project's Bedrock adapter unchanged, redacted bytes included", async () => {
      // Prepare
      const adapter = new BedrockModelClient({ client });
      const request = (call: number, messages: ModelRequest["messages"]): ModelRequest => ({
        modelId: "scripted:redacting",
        goalId: "g-adapter",
        role: "reason",
        call,
        system: SYSTEM,
        messages,
        thinking: { type: "adaptive", effort: "high", summarized: true },
      });
      const start = [{ role: "user" as const, content: [{ text: "Write a note." }] }];

      // Act
      const turn = await adapter.converse(request(0, start));
      const toolUseId = turn.content.flatMap((block) =>
        "toolUse" in block ? [block.toolUse.toolUseId] : [],
      )[0];
      const next = await adapter.converse(
        request(1, [
          ...start,
          { role: "assistant", content: turn.content },
          {
            role: "user",
            content: [
              { toolResult: { toolUseId: toolUseId ?? "", status: "success", content: [{ text: "[]" }] } },
            ],
          },
        ]),
      );

      // Assess
      expect(turn.content[0]).toEqual({
        reasoningContent: { redactedContent: expect.stringMatching(/^\/w/) },
      });
      expect(next.content).toContainEqual({ text: "Done." });
    });
  });

  describe("settings the Claude 5.5 models refuse", () => {
    it.each<[string, ConverseCommandInput["additionalModelRequestFields"], RegExp]>([
      [
        "thinking disabled",
        { thinking: { type: "disabled" } },
        /thinking\.type: "disabled" is not supported for this model/,
      ],
      [
        "a manual budget",
        { thinking: { type: "enabled", budget_tokens: 2048 } },
        /"thinking\.type\.enabled" is not supported/,
      ],
      [
        "an unknown effort",
        { thinking: { type: "adaptive" }, output_config: { effort: "extreme" } },
        /output_config\.effort: Input should be/,
      ],
      ["a top_k", { top_k: 5 }, /additionalModelRequestFields\.top_k is set/],
    ])("refuses %s with a ValidationException", async (_what, fields, message) => {
      // Act
      const failure = await failureOf(
        converse("scripted:thinker", { goalId: "g-settings", call: 0 }, [FIRST], {
          additionalModelRequestFields: fields,
        }),
      );

      // Assess
      expect(failure).toMatchObject({ name: "ValidationException" });
      expect(failure?.message).toMatch(message);
    });
  });

  describe("lenient mode", () => {
    it("takes a tool-use turn without its reasoning when strict is off", async () => {
      // Prepare
      const lenient = await startBedrockEndpoint({ fixturesDir: fixtures.dir, strict: false });
      const lenientClient = new BedrockRuntimeClient({
        endpoint: lenient.url,
        region: "us-east-1",
        credentials: LOCAL_CREDENTIALS,
        maxAttempts: 1,
      });
      try {
        const send = (call: number, messages: Message[]) =>
          lenientClient.send(
            new ConverseCommand({
              modelId: "scripted:thinker",
              system: SYSTEM,
              toolConfig: TOOLS,
              messages,
              requestMetadata: { goalId: "g-lenient", role: "reason", call: String(call) },
            }),
          );
        const turn = contentOf(await send(0, [FIRST]));

        // Act
        const second = await send(1, [FIRST, { role: "assistant", content: turn.slice(1) }, resultFor(turn)]);

        // Assess
        expect(contentOf(second)[0]?.reasoningContent?.reasoningText?.text).toBe("Now the note.");
      } finally {
        lenientClient.destroy();
        await lenient.close();
      }
    });
  });
});
