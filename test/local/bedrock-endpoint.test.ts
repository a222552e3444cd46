import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
} from "@aws-sdk/client-bedrock-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BedrockModelClient } from "../../lambdas/adapters/bedrock/bedrock-model-client";
import { type BedrockEndpoint, startBedrockEndpoint } from "../../lib/local/bedrock/bedrock-endpoint";
import { fixturesFolder, LOCAL_CREDENTIALS } from "./support";

const FIXTURES = {
  "demo.json": {
    reason: [
      { text: "Let me look around." },
      { toolUse: { name: "workspace_write", input: { path: "a.md", content: "hi" } } },
      { text: "cut short", stopReason: "max_tokens", usage: { inputTokens: 1000, outputTokens: 4096 } },
    ],
    judge: [{ error: "ThrottlingException" }, { error: "ThrottlingException" }, { text: "PASS" }],
    summarize: [{ error: "AccessDeniedException", message: "no model access" }],
  },
  "errors.json": {
    reason: [
      { error: "ThrottlingException" },
      { text: "after throttling" },
      { error: "ValidationException" },
      { text: "after validation" },
      { error: "AccessDeniedException" },
      { text: "after access denied" },
      { error: "ResourceNotFoundException" },
      { text: "after not found" },
      { error: "ServiceUnavailableException" },
      { text: "after unavailable" },
      { error: "InternalServerException" },
      { text: "after internal" },
      { error: "ModelTimeoutException" },
      { text: "after model timeout" },
    ],
  },
  "broken.json": { reason: [{ text: "ok" }, { toolUse: { input: {} } }] },
  "bad-role.json": { thinking: [{ text: "x" }] },
  "not-json.json": "{ nope",
};

describe("the local Bedrock endpoint", () => {
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
    goalId: string,
    role: string,
    call: number,
    extra: Partial<ConverseCommandInput> = {},
  ) =>
    client.send(
      new ConverseCommand({
        modelId,
        messages: [{ role: "user", content: [{ text: "Do the thing." }] }],
        requestMetadata: { goalId, role, call: String(call) },
        ...extra,
      }),
    );
  /** The answer's blocks after its reasoning block (every scripted model here thinks). */
  const answerOf = (response: Awaited<ReturnType<typeof converse>>) =>
    (response.output?.message?.content ?? []).filter((block) => block.reasoningContent === undefined);
  const failureOf = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error,
    );

  it("serves a text turn as end_turn with derived usage", async () => {
    // Act
    const response = await converse("scripted:demo", "g-text", "reason", 0);

    // Assess
    expect(answerOf(response)).toEqual([{ text: "Let me look around." }]);
    expect(response.output?.message?.content?.[0]?.reasoningContent?.reasoningText?.text).toContain(
      "reason call 0",
    );
    expect(response.stopReason).toBe("end_turn");
    expect(response.usage?.inputTokens).toBeGreaterThan(0);
    expect(response.usage?.outputTokens).toBeGreaterThan(0);
    expect(response.usage?.totalTokens).toBe(
      (response.usage?.inputTokens ?? 0) + (response.usage?.outputTokens ?? 0),
    );
  });

  it("serves an edited fixture at once, and a fixture broken by an edit fails until it is fixed", async () => {
    // Prepare
    const file = path.join(fixtures.dir, "edited.json");
    writeFileSync(file, JSON.stringify({ reason: [{ text: "first draft" }] }));
    const before = await converse("scripted:edited", "g-edit", "reason", 0);

    // Act: same size, other content; then a broken file; then a fixed one.
    let edited: Awaited<ReturnType<typeof converse>>;
    let broken: unknown;
    let fixed: Awaited<ReturnType<typeof converse>>;
    try {
      writeFileSync(file, JSON.stringify({ reason: [{ text: "second take" }] }));
      edited = await converse("scripted:edited", "g-edit", "reason", 0);
      writeFileSync(file, JSON.stringify({ reason: [{ toolUse: { input: {} } }] }));
      broken = await failureOf(converse("scripted:edited", "g-edit", "reason", 0));
      writeFileSync(file, JSON.stringify({ reason: [{ text: "fixed" }] }));
      fixed = await converse("scripted:edited", "g-edit", "reason", 0);
    } finally {
      // The folder's other tests list its fixtures.
      rmSync(file);
    }

    // Assess
    expect(answerOf(before)).toEqual([{ text: "first draft" }]);
    expect(answerOf(edited)).toEqual([{ text: "second take" }]);
    expect(broken).toMatchObject({ name: "ValidationException" });
    expect(answerOf(fixed)).toEqual([{ text: "fixed" }]);
  });

  it("serves a toolUse turn as tool_use with a generated id that a replay repeats", async () => {
    // Act
    const first = await converse("scripted:demo", "g-tool", "reason", 1);
    const replay = await converse("scripted:demo", "g-tool", "reason", 1);

    // Assess
    const toolUse = answerOf(first)[0]?.toolUse;
    expect(first.stopReason).toBe("tool_use");
    expect(toolUse).toMatchObject({ name: "workspace_write", input: { path: "a.md", content: "hi" } });
    expect(toolUse?.toolUseId).toMatch(/^tooluse_[A-Za-z0-9]{22}$/);
    expect(answerOf(replay)[0]?.toolUse?.toolUseId).toBe(toolUse?.toolUseId);
  });

  it("takes a fixture's own stopReason and usage", async () => {
    // Act
    const response = await converse("scripted:demo", "g-usage", "reason", 2);

    // Assess
    expect(response.stopReason).toBe("max_tokens");
    expect(response.usage).toMatchObject({ inputTokens: 1000, outputTokens: 4096 });
  });

  it.each([
    ["ThrottlingException", 0, 429],
    ["ValidationException", 1, 400],
    ["AccessDeniedException", 2, 403],
    ["ResourceNotFoundException", 3, 404],
    ["ServiceUnavailableException", 4, 503],
    ["InternalServerException", 5, 500],
    ["ModelTimeoutException", 6, 408],
  ])("answers an error turn %s as that SDK exception (call %i, HTTP %i)", async (name, call, status) => {
    // Act
    const failure = await failureOf(converse("scripted:errors", "g-errors", "reason", call));

    // Assess
    expect(failure).toMatchObject({ name, $metadata: { httpStatusCode: status } });
  });

  it("serves a call's error turns to its first attempts, then its response", async () => {
    // Act: three attempts of the same call, as a retried step makes them.
    const first = await failureOf(converse("scripted:demo", "g-retry", "judge", 0));
    const second = await failureOf(converse("scripted:demo", "g-retry", "judge", 0));
    const third = await converse("scripted:demo", "g-retry", "judge", 0);

    // Assess
    expect(first).toMatchObject({ name: "ThrottlingException" });
    expect(second).toMatchObject({ name: "ThrottlingException" });
    expect(answerOf(third)).toEqual([{ text: "PASS" }]);
    expect(endpoint.callCount({ goalId: "g-retry", role: "judge", call: 0 })).toBe(3);
  });

  it("fails past the end of a role's list with FixtureExhausted naming the role, the call and the file", async () => {
    // Act
    const failure = await failureOf(converse("scripted:demo", "g-exhausted", "reason", 3));

    // Assess
    expect(failure).toMatchObject({ name: "FixtureExhausted", $metadata: { httpStatusCode: 400 } });
    expect(String((failure as Error).message)).toMatch(/role=reason call=3 .*demo\.json/);
  });

  it("is what the project's Bedrock adapter turns into a fatal FixtureExhausted, and reads turns from", async () => {
    // Prepare
    const adapter = new BedrockModelClient({ client });
    const request = {
      modelId: "scripted:demo",
      goalId: "g-adapter",
      role: "reason" as const,
      system: [{ text: "You are a test." }],
      messages: [{ role: "user" as const, content: [{ text: "Go." }] }],
    };

    // Act
    const turn = await adapter.converse({ ...request, call: 1 });
    const exhausted = await failureOf(adapter.converse({ ...request, call: 7 }));

    // Assess
    expect(turn).toMatchObject({ stopReason: "tool_use", modelId: "scripted:demo" });
    expect(turn.usage.inputTokens).toBeGreaterThan(0);
    expect(exhausted).toMatchObject({ name: "FixtureExhausted", retryable: false });
  });

  it("answers a model id that is not scripted:<name> with ResourceNotFoundException listing the fixtures", async () => {
    // Act
    const failure = await failureOf(converse("global.anthropic.claude-sonnet-5-5", "g-model", "reason", 0));

    // Assess
    expect(failure).toMatchObject({ name: "ResourceNotFoundException" });
    expect(String((failure as Error).message)).toContain("scripted:<name>");
    expect(String((failure as Error).message)).toContain("demo, errors");
  });

  it.each([
    ["scripted:broken", /broken\.json is invalid: reason\.1\.toolUse\.name/],
    ["scripted:bad-role", /bad-role\.json is invalid: .*thinking/],
    ["scripted:not-json", /not-json\.json cannot be read as JSON/],
    ["scripted:missing", /missing\.json does not exist \(available: .*demo/],
  ])(
    "answers a bad fixture file (%s) with a ValidationException naming the file and the path",
    async (modelId, message) => {
      // Act
      const failure = await failureOf(converse(modelId, "g-bad", "reason", 0));

      // Assess
      expect(failure).toMatchObject({ name: "ValidationException" });
      expect(String((failure as Error).message)).toMatch(message);
    },
  );

  it.each<[string, Partial<ConverseCommandInput>, RegExp]>([
    [
      "a forced tool choice",
      {
        toolConfig: {
          tools: [{ toolSpec: { name: "finish", inputSchema: { json: { type: "object" } } } }],
          toolChoice: { tool: { name: "finish" } },
        },
      },
      /toolConfig\.toolChoice forces a tool call/,
    ],
    ["a temperature", { inferenceConfig: { maxTokens: 64, temperature: 0 } }, /inferenceConfig\.temperature/],
    ["a top_p", { inferenceConfig: { topP: 0.9 } }, /inferenceConfig\.topP/],
    [
      "an assistant prefill",
      {
        messages: [
          { role: "user", content: [{ text: "Answer in JSON." }] },
          { role: "assistant", content: [{ text: "{" }] },
        ],
      },
      /last message is the assistant's/,
    ],
  ])("refuses %s with a ValidationException, as the Claude 5.5 models do", async (_what, extra, message) => {
    // Act
    const failure = await failureOf(converse("scripted:demo", "g-claude-rules", "reason", 0, extra));

    // Assess
    expect(failure).toMatchObject({ name: "ValidationException" });
    expect(String((failure as Error).message)).toMatch(message);
  });

  it("takes a tool list left to the model (auto tool choice)", async () => {
    // Act
    const response = await converse("scripted:demo", "g-auto", "reason", 0, {
      toolConfig: {
        tools: [{ toolSpec: { name: "finish", inputSchema: { json: { type: "object" } } } }],
        toolChoice: { auto: {} },
      },
    });

    // Assess
    expect(response.stopReason).toBe("end_turn");
  });

  it("refuses a request without requestMetadata", async () => {
    // Act
    const failure = await failureOf(
      client.send(
        new ConverseCommand({
          modelId: "scripted:demo",
          messages: [{ role: "user", content: [{ text: "x" }] }],
        }),
      ),
    );

    // Assess
    expect(failure).toMatchObject({ name: "ValidationException" });
    expect(String((failure as Error).message)).toContain("requestMetadata");
  });

  it("counts requests per (goal, role, call) and records what each asked", async () => {
    // Act
    await converse("scripted:demo", "g-count", "reason", 0, { system: [{ text: "counted" }] });

    // Assess
    expect(endpoint.callCount({ goalId: "g-count", role: "reason", call: 0 })).toBe(1);
    expect(endpoint.callCount({ goalId: "g-count", role: "reason", call: 1 })).toBe(0);
    const record = endpoint.calls().find((c) => c.goalId === "g-count");
    expect(record).toMatchObject({ modelId: "scripted:demo", role: "reason", call: 0, attempt: 1 });
    expect(record?.request.system).toEqual([{ text: "counted" }]);
  });
});
