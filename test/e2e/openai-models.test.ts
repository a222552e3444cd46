import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ChatCompletionsServer,
  completion,
  startChatCompletionsServer,
} from "../support/chat-completions-server";
import { allEvents, followGoal, PROJECT_DIR } from "./local-stack-harness";
import { type LocalStackProcess, startLocalStackProcess, writeFixtures } from "./local-stack-process";

const exampleGoal = () =>
  JSON.parse(readFileSync(join(PROJECT_DIR, "examples", "goals", "write-release-summary.json"), "utf8"));

const SUMMARY = "# goal-loops 2.0\n\nRelease 2.0 runs goal-directed agent loops on Step Functions.\n";

/** What a model served by Ollama answers the README's ReAct example: list, then write, with its thinking. */
const SCRIPT = [
  {
    completion: completion(
      {
        content: null,
        reasoning_content: "First see what the workspace holds.",
        tool_calls: [
          { id: "call_list", type: "function", function: { name: "workspace_list", arguments: "{}" } },
        ],
      },
      "tool_calls",
      { prompt_tokens: 1450, completion_tokens: 38 },
    ),
  },
  {
    completion: completion(
      {
        content: "Writing the summary.",
        reasoning_content: "The workspace is empty: write summary.md naming 2.0.",
        tool_calls: [
          {
            id: "call_write",
            type: "function",
            function: {
              name: "workspace_write",
              arguments: JSON.stringify({ path: "summary.md", content: SUMMARY }),
            },
          },
        ],
      },
      "tool_calls",
      { prompt_tokens: 1620, completion_tokens: 96 },
    ),
  },
];

describe("openai: models on the local stack (npm start -- --model openai:test --openai-url …)", () => {
  let server: ChatCompletionsServer;
  let stack: LocalStackProcess;
  let stateDir: string;

  beforeAll(async () => {
    server = await startChatCompletionsServer([...SCRIPT, ...SCRIPT]);
    stateDir = mkdtempSync(join(tmpdir(), "goal-loops-openai-"));
    writeFixtures(stateDir, {});
    stack = await startLocalStackProcess(stateDir, {
      args: ["--in-memory", "--model", "openai:test", "--openai-url", server.baseUrl],
    });
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
    await server?.close();
    if (stateDir !== undefined) rmSync(stateDir, { recursive: true, force: true });
  });

  it("completes the README's ReAct example on the Chat Completions server, its unsigned thinking kept", async () => {
    // Act: the example names a scripted model; --model answers every call with openai:test
    const accepted = await stack.client.submitGoal(exampleGoal());
    const { final } = await followGoal(stack.client, accepted.goalId, { deadlineMs: 120_000 });

    // Assess
    expect(final.status).toBe("completed");
    expect(final.satisfiedChecks).toEqual(["summary-written"]);
    expect(final.lastEvidence).toMatchObject({ kind: "artifact", path: "summary.md" });
    expect(final.usage).toMatchObject({ inputTokens: 1450 + 1620, outputTokens: 38 + 96, modelCalls: 2 });
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests.map((request) => request.body);
    expect(first).toMatchObject({ model: "test", stream: false });
    const tools = (first?.tools ?? []) as { function: { name: string } }[];
    const toolNames = tools.map((tool) => tool.function.name);
    expect(toolNames).toEqual(expect.arrayContaining(["workspace_list", "workspace_write"]));
    // The second request carries the first answer's tool call and its result as a tool message
    const messages = second?.messages as Record<string, unknown>[];
    expect(messages).toContainEqual(
      expect.objectContaining({
        role: "assistant",
        tool_calls: [
          { id: "call_list", type: "function", function: { name: "workspace_list", arguments: "{}" } },
        ],
      }),
    );
    expect(messages).toContainEqual(expect.objectContaining({ role: "tool", tool_call_id: "call_list" }));
    // The model's reasoning reached the events as its summary
    const events = await allEvents(stack.client, accepted.goalId);
    expect(JSON.stringify(events)).toContain("First see what the workspace holds.");
  });

  it("admits a goal that names an openai: model itself (the local allow-list and prices know the prefix)", async () => {
    // Act
    const accepted = await stack.client.submitGoal({
      ...exampleGoal(),
      models: { default: "openai:llama3.1" },
    });
    const { final } = await followGoal(stack.client, accepted.goalId, { deadlineMs: 120_000 });

    // Assess
    expect(final.status).toBe("completed");
    expect(final.usage).toMatchObject({ modelCalls: 2, costUsd: 0 });
    expect(server.requests).toHaveLength(4);
  });

  it("fails the goal with ServiceUnavailableException naming the URL when the server is gone", async () => {
    // Prepare
    await server.close();

    // Act
    const accepted = await stack.client.submitGoal(exampleGoal());
    const { final } = await followGoal(stack.client, accepted.goalId, { deadlineMs: 120_000 });

    // Assess
    expect(final.status).toBe("failed");
    expect(final.stopReason).toMatchObject({ detail: "ServiceUnavailableException", role: "reason" });
    expect(final.stopReason?.message).toContain(`${server.baseUrl}/chat/completions cannot be reached`);
    expect(final.usage.modelCalls).toBe(0);
  });
});
