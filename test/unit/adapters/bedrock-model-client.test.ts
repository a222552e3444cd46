import {
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandOutput,
  ThrottlingException,
  ValidationException,
} from "@aws-sdk/client-bedrock-runtime";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { BedrockModelClient } from "../../../lambdas/adapters/bedrock/bedrock-model-client";
import { ValidationError } from "../../../lambdas/core/goal/errors";
import {
  ModelFatalError,
  type ModelRequest,
  ModelRetryableError,
} from "../../../lambdas/core/ports/model-client";

const bedrock = mockClient(BedrockRuntimeClient);
const modelId = "global.anthropic.claude-haiku-5-5";

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    modelId,
    goalId: "goal-01",
    role: "reason",
    call: 0,
    system: [{ text: "You pursue goals." }],
    messages: [{ role: "user", content: [{ text: "Count the files." }] }],
    ...overrides,
  };
}

function output(overrides: Partial<ConverseCommandOutput> = {}): ConverseCommandOutput {
  return {
    $metadata: {},
    output: { message: { role: "assistant", content: [{ text: "Done." }] } },
    stopReason: "end_turn",
    usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 },
    metrics: { latencyMs: 40 },
    ...overrides,
  };
}

function sentInput() {
  return bedrock.commandCalls(ConverseCommand)[0]?.args[0].input;
}

describe("BedrockModelClient", () => {
  const client = new BedrockModelClient({ client: new BedrockRuntimeClient({ region: "eu-west-1" }) });

  beforeEach(() => {
    bedrock.reset();
  });

  afterAll(() => {
    bedrock.restore();
  });

  describe("turns", () => {
    it("maps a text turn, with cache tokens 0 when Bedrock reports none", async () => {
      // Prepare
      bedrock.on(ConverseCommand).resolves(output());

      // Act
      const turn = await client.converse(request());

      // Assess
      expect(turn).toEqual({
        modelId,
        stopReason: "end_turn",
        content: [{ text: "Done." }],
        usage: { inputTokens: 12, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 },
      });
    });

    it("maps a tool_use turn with its toolUse blocks", async () => {
      // Prepare
      bedrock.on(ConverseCommand).resolves(
        output({
          stopReason: "tool_use",
          output: {
            message: {
              role: "assistant",
              content: [
                { text: "Listing first." },
                { toolUse: { toolUseId: "tu-1", name: "workspace_list", input: {} } },
                { toolUse: { toolUseId: "tu-2", name: "workspace_read", input: { path: "a.txt" } } },
              ],
            },
          },
        }),
      );

      // Act
      const turn = await client.converse(request());

      // Assess
      expect(turn.stopReason).toBe("tool_use");
      expect(turn.content).toEqual([
        { text: "Listing first." },
        { toolUse: { toolUseId: "tu-1", name: "workspace_list", input: {} } },
        { toolUse: { toolUseId: "tu-2", name: "workspace_read", input: { path: "a.txt" } } },
      ]);
    });

    it("keeps reasoning blocks as received: text and signature, and redacted bytes as base64", async () => {
      // Prepare: binary that is not UTF-8, to show the bytes survive
      const redacted = Uint8Array.from([0, 255, 16, 128, 7]);
      bedrock.on(ConverseCommand).resolves(
        output({
          stopReason: "tool_use",
          output: {
            message: {
              role: "assistant",
              content: [
                { reasoningContent: { reasoningText: { text: "List first.", signature: "c2lnLTE=" } } },
                { reasoningContent: { redactedContent: redacted } },
                { reasoningContent: { reasoningText: { text: undefined, signature: "c2lnLTI=" } } },
                { text: "Listing." },
                { toolUse: { toolUseId: "t-1", name: "workspace_list", input: {} } },
              ],
            },
          },
        }),
      );

      // Act
      const turn = await client.converse(request());

      // Assess: in the model's order, an omitted thinking text as "", the bytes as base64
      expect(turn.content).toEqual([
        { reasoningContent: { reasoningText: { text: "List first.", signature: "c2lnLTE=" } } },
        { reasoningContent: { redactedContent: Buffer.from(redacted).toString("base64") } },
        { reasoningContent: { reasoningText: { text: "", signature: "c2lnLTI=" } } },
        { text: "Listing." },
        { toolUse: { toolUseId: "t-1", name: "workspace_list", input: {} } },
      ]);
    });

    it("drops blocks the port cannot represent, such as citations", async () => {
      // Prepare
      bedrock.on(ConverseCommand).resolves(
        output({
          output: {
            message: {
              role: "assistant",
              content: [
                { citationsContent: { content: [{ text: "cited" }], citations: [] } },
                { text: "Yes." },
              ],
            },
          },
        }),
      );

      // Act
      const turn = await client.converse(request());

      // Assess
      expect(turn.content).toEqual([{ text: "Yes." }]);
    });

    it("maps cache read and write tokens", async () => {
      // Prepare
      bedrock.on(ConverseCommand).resolves(
        output({
          usage: {
            inputTokens: 100,
            outputTokens: 20,
            totalTokens: 3120,
            cacheReadInputTokens: 2000,
            cacheWriteInputTokens: 1000,
          },
        }),
      );

      // Act
      const turn = await client.converse(request());

      // Assess
      expect(turn.usage).toEqual({
        inputTokens: 100,
        outputTokens: 20,
        cacheReadTokens: 2000,
        cacheWriteTokens: 1000,
      });
    });
  });

  describe("the Converse input", () => {
    it("sends system blocks, messages block by block, tools, inference config and request metadata", async () => {
      // Prepare
      bedrock.on(ConverseCommand).resolves(output());
      const inputSchema = {
        type: "object",
        properties: { path: { type: "string" } },
        required: ["path"],
      };

      // Act
      await client.converse(
        request({
          role: "execute",
          call: 7,
          system: [{ text: "Stable prefix." }, { cachePoint: { type: "default" } }, { text: "Volatile." }],
          messages: [
            { role: "user", content: [{ text: "Read a.txt." }, { cachePoint: { type: "default" } }] },
            {
              role: "assistant",
              content: [{ toolUse: { toolUseId: "tu-1", name: "workspace_read", input: { path: "a.txt" } } }],
            },
            {
              role: "user",
              content: [
                {
                  toolResult: {
                    toolUseId: "tu-1",
                    status: "success",
                    content: [{ text: "hello" }, { json: { bytes: 5 } }],
                  },
                },
              ],
            },
          ],
          tools: [{ name: "workspace_read", description: "Reads a file.", inputSchema }],
          maxTokens: 1024,
        }),
      );

      // Assess
      expect(sentInput()).toEqual({
        modelId,
        system: [{ text: "Stable prefix." }, { cachePoint: { type: "default" } }, { text: "Volatile." }],
        messages: [
          { role: "user", content: [{ text: "Read a.txt." }, { cachePoint: { type: "default" } }] },
          {
            role: "assistant",
            content: [{ toolUse: { toolUseId: "tu-1", name: "workspace_read", input: { path: "a.txt" } } }],
          },
          {
            role: "user",
            content: [
              {
                toolResult: {
                  toolUseId: "tu-1",
                  status: "success",
                  content: [{ text: "hello" }, { json: { bytes: 5 } }],
                },
              },
            ],
          },
        ],
        toolConfig: {
          tools: [
            {
              toolSpec: {
                name: "workspace_read",
                description: "Reads a file.",
                inputSchema: { json: inputSchema },
              },
            },
          ],
        },
        inferenceConfig: { maxTokens: 1024 },
        requestMetadata: { goalId: "goal-01", role: "execute", call: "7" },
      });
    });

    it("omits toolConfig and inferenceConfig when the request has neither", async () => {
      // Prepare
      bedrock.on(ConverseCommand).resolves(output());

      // Act
      await client.converse(request({ tools: [] }));

      // Assess
      const input = sentInput();
      expect(input).toBeDefined();
      expect(input).not.toHaveProperty("toolConfig");
      expect(input).not.toHaveProperty("inferenceConfig");
      expect(input?.requestMetadata).toEqual({ goalId: "goal-01", role: "reason", call: "0" });
    });
  });

  describe("reasoning and thinking", () => {
    it("sends a kept reasoning block back byte for byte: the same text, signature and bytes", async () => {
      // Prepare
      bedrock.on(ConverseCommand).resolves(output());
      const redacted = Uint8Array.from([0, 255, 16, 128, 7]);
      const turn = request({
        messages: [
          { role: "user", content: [{ text: "Count the files." }] },
          {
            role: "assistant",
            content: [
              { reasoningContent: { reasoningText: { text: "List first.", signature: "c2lnLTE=" } } },
              { reasoningContent: { redactedContent: Buffer.from(redacted).toString("base64") } },
              { toolUse: { toolUseId: "t-1", name: "workspace_list", input: {} } },
            ],
          },
          {
            role: "user",
            content: [
              { toolResult: { toolUseId: "t-1", status: "success", content: [{ json: { files: [] } }] } },
            ],
          },
        ],
      });

      // Act
      await client.converse(turn);

      // Assess
      const assistant = sentInput()?.messages?.[1];
      expect(assistant?.content?.[0]).toEqual({
        reasoningContent: { reasoningText: { text: "List first.", signature: "c2lnLTE=" } },
      });
      const sentBytes = assistant?.content?.[1]?.reasoningContent?.redactedContent;
      expect(sentBytes && Array.from(sentBytes)).toEqual(Array.from(redacted));
    });

    it("sends adaptive thinking, the effort and a request for the summary in additionalModelRequestFields", async () => {
      // Prepare
      bedrock.on(ConverseCommand).resolves(output());

      // Act
      await client.converse(
        request({ maxTokens: 12_288, thinking: { type: "adaptive", effort: "low", summarized: true } }),
      );

      // Assess
      const input = sentInput();
      expect(input?.additionalModelRequestFields).toEqual({
        thinking: { type: "adaptive", display: "summarized" },
        output_config: { effort: "low" },
      });
      expect(input?.inferenceConfig).toEqual({ maxTokens: 12_288 });
    });

    it("sends between_tools, disabled and a manual budget in each one's own terms", async () => {
      // Prepare
      bedrock.on(ConverseCommand).resolves(output());

      // Act
      await client.converse(
        request({ thinking: { type: "between_tools", effort: "high", summarized: false } }),
      );
      await client.converse(request({ thinking: { type: "disabled", effort: "medium" } }));
      await client.converse(request({ thinking: { type: "enabled", budgetTokens: 2048 } }));

      // Assess
      const sent = bedrock
        .commandCalls(ConverseCommand)
        .map((call) => call.args[0].input.additionalModelRequestFields);
      expect(sent).toEqual([
        { thinking: { type: "between_tools" }, output_config: { effort: "high" } },
        { thinking: { type: "disabled" }, output_config: { effort: "medium" } },
        { thinking: { type: "enabled", budget_tokens: 2048 } },
      ]);
    });
  });

  describe("what the Claude 5.5 models refuse (400)", () => {
    it("sends no toolChoice, temperature or topP, even with tools and a request that carries them", async () => {
      // Prepare: extra fields a caller might slip past the types
      bedrock.on(ConverseCommand).resolves(output());
      const smuggled = {
        ...request({
          tools: [{ name: "finish", description: "Ends.", inputSchema: { type: "object" } }],
          maxTokens: 256,
        }),
        temperature: 0,
        topP: 0.9,
        toolChoice: { tool: { name: "finish" } },
      };

      // Act
      await client.converse(smuggled);

      // Assess
      const input = sentInput();
      expect(input?.toolConfig).toEqual({
        tools: [
          { toolSpec: { name: "finish", description: "Ends.", inputSchema: { json: { type: "object" } } } },
        ],
      });
      expect(input?.toolConfig).not.toHaveProperty("toolChoice");
      expect(input?.inferenceConfig).toEqual({ maxTokens: 256 });
      expect(input).not.toHaveProperty("additionalModelRequestFields");
    });

    it("refuses an assistant prefill (a last assistant message) with a ValidationError, before any call", async () => {
      // Prepare
      bedrock.on(ConverseCommand).resolves(output());
      const prefilled = request({
        messages: [
          { role: "user", content: [{ text: "Answer in JSON." }] },
          { role: "assistant", content: [{ text: "{" }] },
        ],
      });

      // Act
      const error = await client.converse(prefilled).catch((caught: unknown) => caught);

      // Assess
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).message).toMatch(/messages: must end with a user message/);
      expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
    });
  });

  describe("failures", () => {
    it("rejects an invalid request with a ValidationError naming the path, before any call", async () => {
      // Prepare
      bedrock.on(ConverseCommand).resolves(output());

      // Act
      const error = await client.converse(request({ messages: [] })).catch((caught: unknown) => caught);

      // Assess
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues.map((issue) => issue.path)).toEqual(["messages"]);
      expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
    });

    it("throws a fatal MalformedModelResponse when the output has no message", async () => {
      // Prepare
      bedrock.on(ConverseCommand).resolves(output({ output: undefined }));

      // Act
      const error = await client.converse(request()).catch((caught: unknown) => caught);

      // Assess
      expect(error).toBeInstanceOf(ModelFatalError);
      expect((error as ModelFatalError).toErrorObject()).toEqual({
        name: "MalformedModelResponse",
        message: "Bedrock Converse returned no output message",
        retryable: false,
      });
    });

    it("throws a fatal MalformedModelResponse when token counts are missing", async () => {
      // Prepare
      bedrock.on(ConverseCommand).resolves(output({ usage: undefined }));

      // Act
      const error = await client.converse(request()).catch((caught: unknown) => caught);

      // Assess
      expect(error).toBeInstanceOf(ModelFatalError);
      expect((error as ModelFatalError).name).toBe("MalformedModelResponse");
      expect((error as ModelFatalError).message).toContain("usage.inputTokens");
      expect((error as ModelFatalError).cause).toBeInstanceOf(ValidationError);
    });

    it("throws a retryable error named after a Bedrock throttling exception", async () => {
      // Prepare
      bedrock
        .on(ConverseCommand)
        .rejects(new ThrottlingException({ message: "Too many requests", $metadata: {} }));

      // Act
      const error = await client.converse(request()).catch((caught: unknown) => caught);

      // Assess
      expect(error).toBeInstanceOf(ModelRetryableError);
      expect((error as ModelRetryableError).toErrorObject()).toEqual({
        name: "ThrottlingException",
        message: "Too many requests",
        retryable: true,
      });
    });

    it("throws a fatal error named after a Bedrock validation exception", async () => {
      // Prepare
      bedrock
        .on(ConverseCommand)
        .rejects(new ValidationException({ message: "bad toolConfig", $metadata: {} }));

      // Act
      const error = await client.converse(request()).catch((caught: unknown) => caught);

      // Assess
      expect(error).toBeInstanceOf(ModelFatalError);
      expect((error as ModelFatalError).name).toBe("ValidationException");
      expect((error as ModelFatalError).retryable).toBe(false);
    });
  });
});
