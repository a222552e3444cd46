import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { converseWithOpenAi } from "../../lib/local/bedrock/openai-chat-client";
import {
  chatCompletionToConverse,
  chatErrorToBedrock,
  converseToChatCompletion,
} from "../../lib/local/bedrock/openai-chat-translation";
import type { JsonObject } from "../../lib/local/shared/cloud-assembly-model";
import { AwsApiError } from "../../lib/local/shared/errors";
import {
  type ChatCompletionsServer,
  completion,
  startChatCompletionsServer,
} from "../support/chat-completions-server";

const idOf = (index: number) => `derived_${index}`;

/** A Converse request as the model client sends it: system, tools with a cache point, a tool-use cycle. */
const CONVERSE_REQUEST: JsonObject = {
  system: [{ text: "You pursue a goal." }, { text: "Use tools." }, { cachePoint: { type: "default" } }],
  messages: [
    { role: "user", content: [{ text: "Write summary.md" }] },
    {
      role: "assistant",
      content: [
        { reasoningContent: { reasoningText: { text: "I should list first." } } },
        { text: "Listing." },
        { toolUse: { toolUseId: "call_1", name: "workspace_list", input: {} } },
        { toolUse: { toolUseId: "call_2", name: "workspace_read", input: { path: "a.md" } } },
      ],
    },
    {
      role: "user",
      content: [
        { toolResult: { toolUseId: "call_1", content: [{ json: { files: ["a.md"] } }], status: "success" } },
        { toolResult: { toolUseId: "call_2", content: [{ text: "no such file" }], status: "error" } },
        { text: "Progress so far: none." },
      ],
    },
  ],
  toolConfig: {
    tools: [
      {
        toolSpec: {
          name: "workspace_list",
          description: "List files",
          inputSchema: { json: { type: "object", properties: {} } },
        },
      },
      { cachePoint: { type: "default" } },
    ],
    toolChoice: { auto: {} },
  },
  inferenceConfig: { maxTokens: 4096 },
  additionalModelRequestFields: { thinking: { type: "adaptive" }, output_config: { effort: "high" } },
  requestMetadata: { goalId: "g-1", role: "reason", call: "1" },
};

describe("Converse → Chat Completions", () => {
  it("sends system, messages, tool calls and results, tools and the token bound; no Bedrock-only field", () => {
    // Act
    const chat = converseToChatCompletion(CONVERSE_REQUEST, "llama3.1");

    // Assess
    expect(chat).toEqual({
      model: "llama3.1",
      messages: [
        { role: "system", content: "You pursue a goal.\nUse tools." },
        { role: "user", content: "Write summary.md" },
        {
          role: "assistant",
          content: "Listing.",
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "workspace_list", arguments: "{}" } },
            {
              id: "call_2",
              type: "function",
              function: { name: "workspace_read", arguments: '{"path":"a.md"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: '{"files":["a.md"]}' },
        { role: "tool", tool_call_id: "call_2", content: "Error: no such file" },
        { role: "user", content: "Progress so far: none." },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "workspace_list",
            description: "List files",
            parameters: { type: "object", properties: {} },
          },
        },
      ],
      tool_choice: "auto",
      max_tokens: 4096,
      stream: false,
    });
  });

  it("refuses, naming where, a block Chat Completions cannot carry", () => {
    // Prepare
    const request: JsonObject = {
      messages: [{ role: "user", content: [{ image: { format: "png", source: { bytes: "AAAA" } } }] }],
    };

    // Act / Assess
    expect(() => converseToChatCompletion(request, "m")).toThrow(
      /messages\.0\.content\.0: only text can go to an openai: model, not image/,
    );
  });
});

describe("Chat Completions → Converse", () => {
  it("maps a text answer (Ollama's shape) to end_turn with its usage", () => {
    // Act
    const converse = chatCompletionToConverse(
      completion({ content: "Done: summary.md names 2.0." }, "stop", {
        prompt_tokens: 812,
        completion_tokens: 17,
      }),
      idOf,
    );

    // Assess
    expect(converse).toEqual({
      output: { message: { role: "assistant", content: [{ text: "Done: summary.md names 2.0." }] } },
      stopReason: "end_turn",
      usage: { inputTokens: 812, outputTokens: 17, totalTokens: 829 },
      metrics: { latencyMs: 0 },
    });
  });

  it("maps one tool call with reasoning_content to an unsigned reasoning block and a toolUse", () => {
    // Act
    const converse = chatCompletionToConverse(
      completion(
        {
          content: null,
          reasoning_content: "The workspace is empty; write the file.",
          tool_calls: [
            {
              id: "call_9",
              type: "function",
              function: { name: "workspace_write", arguments: '{"path":"summary.md","content":"2.0"}' },
            },
          ],
        },
        "tool_calls",
      ),
      idOf,
    );

    // Assess
    expect(converse.stopReason).toBe("tool_use");
    expect(converse.output).toEqual({
      message: {
        role: "assistant",
        content: [
          { reasoningContent: { reasoningText: { text: "The workspace is empty; write the file." } } },
          {
            toolUse: {
              toolUseId: "call_9",
              name: "workspace_write",
              input: { path: "summary.md", content: "2.0" },
            },
          },
        ],
      },
    });
  });

  it("maps several tool calls in order, gives an id to a call without one, reads Ollama's `reasoning`", () => {
    // Act
    const converse = chatCompletionToConverse(
      completion(
        {
          content: "Two things at once.",
          reasoning: "List, then read.",
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "workspace_list", arguments: "{}" } },
            { type: "function", function: { name: "workspace_read", arguments: '{"path":"a.md"}' } },
          ],
        },
        // Ollama answers tool calls with finish_reason "stop"
        "stop",
      ),
      idOf,
    );

    // Assess
    expect(converse.stopReason).toBe("tool_use");
    expect(converse.output).toEqual({
      message: {
        role: "assistant",
        content: [
          { reasoningContent: { reasoningText: { text: "List, then read." } } },
          { text: "Two things at once." },
          { toolUse: { toolUseId: "call_a", name: "workspace_list", input: {} } },
          { toolUse: { toolUseId: "derived_1", name: "workspace_read", input: { path: "a.md" } } },
        ],
      },
    });
  });

  it("keeps a tool call whose arguments are not a JSON object, empty, and stops with malformed_tool_use", () => {
    // Act
    const converse = chatCompletionToConverse(
      completion(
        {
          content: "",
          tool_calls: [
            {
              id: "call_x",
              type: "function",
              function: { name: "workspace_write", arguments: '{"path": "a.md", ' },
            },
          ],
        },
        "tool_calls",
      ),
      idOf,
    );

    // Assess
    expect(converse.stopReason).toBe("malformed_tool_use");
    expect(converse.output).toEqual({
      message: {
        role: "assistant",
        content: [{ toolUse: { toolUseId: "call_x", name: "workspace_write", input: {} } }],
      },
    });
  });

  it("maps a length stop to max_tokens and cached prompt tokens to cacheReadInputTokens", () => {
    // Prepare
    const answer = completion({ content: "The summary is cut" }, "length", {
      prompt_tokens: 2000,
      completion_tokens: 4096,
    });
    Object.assign(answer.usage as object, { prompt_tokens_details: { cached_tokens: 1500 } });

    // Act
    const converse = chatCompletionToConverse(answer, idOf);

    // Assess
    expect(converse.stopReason).toBe("max_tokens");
    expect(converse.usage).toEqual({
      inputTokens: 500,
      outputTokens: 4096,
      totalTokens: 6096,
      cacheReadInputTokens: 1500,
    });
  });

  it("answers ModelErrorException, naming the field, for a body that is no chat completion", () => {
    // Act / Assess
    expect(() => chatCompletionToConverse({ choices: [] }, idOf)).toThrow(
      expect.objectContaining({ code: "ModelErrorException", message: expect.stringMatching(/choices/) }),
    );
  });
});

describe("Chat Completions errors → Bedrock errors", () => {
  const URL = "http://127.0.0.1:11434/v1/chat/completions";

  it.each([
    [
      400,
      { error: { message: "invalid tool schema", type: "invalid_request_error" } },
      "ValidationException",
      400,
    ],
    [429, { error: { message: "Rate limit reached", type: "rate_limit_error" } }, "ThrottlingException", 429],
    [
      404,
      { error: { message: 'model "llama9" not found, try pulling it first' } },
      "ResourceNotFoundException",
      404,
    ],
    [401, { error: { message: "Invalid API key" } }, "AccessDeniedException", 403],
    [500, { error: "llama runner process has terminated" }, "InternalServerException", 500],
    [503, { error: { message: "loading model" } }, "ServiceUnavailableException", 503],
  ])("%i → %s", (status, body, code, statusCode) => {
    // Act
    const error = chatErrorToBedrock(status, JSON.stringify(body), URL);

    // Assess
    expect(error).toBeInstanceOf(AwsApiError);
    expect(error).toMatchObject({ code, statusCode });
    expect(error.message).toContain(URL);
    const detail = typeof body.error === "string" ? body.error : body.error.message;
    expect(error.message).toContain(detail);
  });

  it("keeps a body that is not JSON as the detail", () => {
    // Act
    const error = chatErrorToBedrock(502, "<html>Bad Gateway</html>", URL);

    // Assess
    expect(error).toMatchObject({ code: "ServiceUnavailableException", statusCode: 503 });
    expect(error.message).toContain("Bad Gateway");
  });
});

describe("the OpenAI-compatible client", () => {
  let server: ChatCompletionsServer;

  beforeAll(async () => {
    server = await startChatCompletionsServer([
      { completion: completion({ content: "hello" }, "stop") },
      { status: 429, body: { error: { message: "slow down", type: "rate_limit_error" } } },
    ]);
  });

  afterAll(async () => {
    await server?.close();
  });

  it("posts to <url>/chat/completions with the key as a bearer token, and maps the answer", async () => {
    // Act
    const converse = await converseWithOpenAi(
      { baseUrl: `${server.baseUrl}/`, apiKey: "sk-local" },
      "test",
      CONVERSE_REQUEST,
      idOf,
    );

    // Assess
    expect(converse.output).toEqual({ message: { role: "assistant", content: [{ text: "hello" }] } });
    expect(server.requests[0]).toMatchObject({
      path: "/v1/chat/completions",
      authorization: "Bearer sk-local",
      body: { model: "test", stream: false },
    });
  });

  it("answers a 429 as ThrottlingException", async () => {
    // Act / Assess
    await expect(
      converseWithOpenAi({ baseUrl: server.baseUrl }, "test", CONVERSE_REQUEST, idOf),
    ).rejects.toMatchObject({ code: "ThrottlingException", statusCode: 429 });
  });

  it("answers a refused connection as ServiceUnavailableException naming the URL", async () => {
    // Prepare: a port nothing listens on
    const probe = createServer();
    await new Promise<void>((resolveListen) => probe.listen(0, "127.0.0.1", resolveListen));
    const address = probe.address();
    await new Promise((resolveClose) => probe.close(resolveClose));
    const port = typeof address === "object" && address !== null ? address.port : 0;
    const baseUrl = `http://127.0.0.1:${port}/v1`;

    // Act / Assess
    await expect(converseWithOpenAi({ baseUrl }, "test", CONVERSE_REQUEST, idOf)).rejects.toMatchObject({
      code: "ServiceUnavailableException",
      statusCode: 503,
      message: expect.stringContaining(`${baseUrl}/chat/completions cannot be reached (ECONNREFUSED)`),
    });
  });
});
