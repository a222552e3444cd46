import { describe, expect, it } from "vitest";
import { canonicalJson, sha256Hex } from "../../../lambdas/core/goal/canonical-json";
import {
  ArtifactObservationSchema,
  ToolResultObservationSchema,
} from "../../../lambdas/core/goal/evidence/cycle-observations";
import { WorkspacePathSchema } from "../../../lambdas/core/goal/goal-spec";
import type { ToolUseBlock } from "../../../lambdas/core/ports/model-client";
import { StepRecordSchema } from "../../../lambdas/core/ports/step-log";
import { type ToolCallContext, toolCallIdempotencyKey } from "../../../lambdas/core/ports/tool-runner";
import { createBuiltInToolRunner, notifyMessageId, overflowArtifactPath } from "../../../lambdas/tools";
import { callContext, InMemoryOutbox, InMemoryWorkspace, NOW, UnavailableWorkspace } from "./support";

function setup(options: { inlineLimitBytes?: number; workspace?: InMemoryWorkspace } = {}) {
  const workspace = options.workspace ?? new InMemoryWorkspace();
  const outbox = new InMemoryOutbox();
  const runner = createBuiltInToolRunner({
    workspace,
    outbox,
    allowedHosts: [],
    inlineLimitBytes: options.inlineLimitBytes,
    now: () => NOW,
  });
  let next = 0;
  const call = (
    name: string,
    input: ToolUseBlock["input"],
    toolUseId = `tooluse_${++next}`,
  ): ToolUseBlock => ({
    toolUseId,
    name,
    input,
  });
  return { workspace, outbox, runner, call };
}

const ALL_TOOLS: ToolCallContext["grantedTools"] = [
  "http_request",
  "notify",
  "workspace_list",
  "workspace_read",
  "workspace_write",
];

function textOf(outcome: { result: { content: readonly unknown[] } }): string {
  return JSON.stringify(outcome.result.content);
}

describe("createBuiltInToolRunner: workspace tools", () => {
  it("writes, reads back and lists a file, reporting the write as an artifact", async () => {
    // Prepare
    const { runner, call } = setup();
    const context = callContext();

    // Act
    const written = await runner.run(
      call("workspace_write", { path: "out/report.md", content: "# Report\n" }),
      context,
    );
    const read = await runner.run(call("workspace_read", { path: "out/report.md" }), context);
    const listed = await runner.run(call("workspace_list", {}), context);

    // Assess
    const sha256 = sha256Hex("# Report\n");
    expect(written.errorName).toBeUndefined();
    expect(written.result).toEqual({
      toolUseId: "tooluse_1",
      status: "success",
      content: [{ json: { path: "out/report.md", sha256, size: 9, version: 1, changed: true } }],
    });
    expect(written.artifacts).toEqual([{ path: "out/report.md", sha256 }]);
    expect(read.result.content).toEqual([
      {
        json: {
          path: "out/report.md",
          version: 1,
          sha256,
          size: 9,
          offset: 0,
          content: "# Report\n",
          remainingChars: 0,
        },
      },
    ]);
    expect(read.artifacts).toEqual([]);
    expect(listed.result.content).toEqual([
      {
        json: {
          files: [{ path: "out/report.md", size: 9, version: 1, sha256, updatedAt: NOW.toISOString() }],
        },
      },
    ]);
  });

  it("records an observation verify can judge: the full result's hash and the result itself", async () => {
    // Prepare
    const { runner, call } = setup();

    // Act
    const outcome = await runner.run(
      call("workspace_write", { path: "a.txt", content: "hello" }),
      callContext(),
    );

    // Assess
    const json = { path: "a.txt", sha256: sha256Hex("hello"), size: 5, version: 1, changed: true };
    expect(outcome.observation).toEqual({
      tool: "workspace_write",
      status: "success",
      resultJson: json,
      sha256: sha256Hex(canonicalJson(json)),
    });
    expect(ToolResultObservationSchema.parse(outcome.observation)).toEqual(outcome.observation);
  });

  it("leaves the version alone when a retried write carries the same content", async () => {
    // Prepare
    const { runner, call } = setup();
    const write = call("workspace_write", { path: "a.txt", content: "same" });
    await runner.run(write, callContext());

    // Act
    const retried = await runner.run(write, callContext());

    // Assess
    expect(retried.result.content).toEqual([
      { json: { path: "a.txt", sha256: sha256Hex("same"), size: 4, version: 1, changed: false } },
    ]);
  });

  it("pages through a file with offset and length", async () => {
    // Prepare
    const { runner, call } = setup();
    await runner.run(call("workspace_write", { path: "a.txt", content: "0123456789" }), callContext());

    // Act
    const page = await runner.run(
      call("workspace_read", { path: "a.txt", offset: 2, length: 3 }),
      callContext(),
    );

    // Assess
    expect(page.result.content).toEqual([
      expect.objectContaining({
        json: expect.objectContaining({ offset: 2, content: "234", remainingChars: 5 }),
      }),
    ]);
  });

  it("answers FileNotFound naming the path for a missing file", async () => {
    // Prepare
    const { runner, call } = setup();

    // Act
    const outcome = await runner.run(call("workspace_read", { path: "missing/file.md" }), callContext());

    // Assess
    expect(outcome.errorName).toBe("FileNotFound");
    expect(outcome.result.status).toBe("error");
    expect(textOf(outcome)).toContain("'missing/file.md'");
    expect(outcome.observation).toMatchObject({ tool: "workspace_read", status: "error" });
    expect(outcome.observation.resultText).toMatch(/^FileNotFound: /);
  });

  it("refuses writes into the runner's .artifacts/ folder as invalid input", async () => {
    // Prepare
    const { runner, call, workspace } = setup();

    // Act
    const outcome = await runner.run(
      call("workspace_write", { path: ".artifacts/3-x.txt", content: "forged" }),
      callContext(),
    );

    // Assess
    expect(outcome.errorName).toBe("InvalidToolInput");
    expect(textOf(outcome)).toContain("path:");
    expect(workspace.files.size).toBe(0);
  });
});

describe("createBuiltInToolRunner: bad calls become tool errors", () => {
  it("answers UnknownTool for a name no tool has, listing the tools the goal can use", async () => {
    // Prepare
    const { runner, call } = setup();

    // Act
    const outcome = await runner.run(call("deploy_prod", {}), callContext());

    // Assess
    expect(outcome.errorName).toBe("UnknownTool");
    expect(outcome.result).toMatchObject({ toolUseId: "tooluse_1", status: "error" });
    expect(textOf(outcome)).toContain("workspace_list, workspace_read, workspace_write");
    expect(outcome.observation).toMatchObject({ tool: "deploy_prod", status: "error" });
    expect(outcome.artifacts).toEqual([]);
  });

  it("answers ToolNotGranted for a registered tool the goal was not given", async () => {
    // Prepare
    const { runner, call, outbox } = setup();

    // Act
    const outcome = await runner.run(
      call("notify", { channel: "ops", message: "hi" }),
      callContext({ preAuthorized: ["notify"] }),
    );

    // Assess
    expect(outcome.errorName).toBe("ToolNotGranted");
    expect(textOf(outcome)).toContain("'notify' is not granted");
    expect(outbox.messages.size).toBe(0);
  });

  it("answers InvalidToolInput naming every bad field", async () => {
    // Prepare
    const { runner, call } = setup();

    // Act
    const outcome = await runner.run(
      call("workspace_write", { path: "../escape.txt", content: 42, extra: true }),
      callContext(),
    );

    // Assess
    expect(outcome.errorName).toBe("InvalidToolInput");
    const text = textOf(outcome);
    expect(text).toContain("path: must be a relative path");
    expect(text).toContain("content:");
    expect(text).toContain("extra: unknown field");
  });

  it("answers ToolCallTruncated and runs nothing when the turn hit max_tokens", async () => {
    // Prepare
    const { runner, call, workspace } = setup();

    // Act
    const outcome = await runner.run(
      call("workspace_write", { path: "a.txt", content: "half a fi" }),
      callContext({ truncated: true }),
    );

    // Assess
    expect(outcome.errorName).toBe("ToolCallTruncated");
    expect(textOf(outcome)).toContain("output token limit");
    expect(workspace.files.size).toBe(0);
  });

  it("answers ApprovalRequired for an irreversible tool that is not pre-authorized, and says why", async () => {
    // Prepare
    const { runner, call, outbox } = setup();

    // Act
    const outcome = await runner.run(
      call("notify", { channel: "ops", message: "deploying" }),
      callContext({ grantedTools: ALL_TOOLS }),
    );

    // Assess
    expect(outcome.errorName).toBe("ApprovalRequired");
    expect(textOf(outcome)).toContain("needs a human approval that this call does not have");
    expect(textOf(outcome)).toContain("approval.preAuthorized");
    expect(outbox.messages.size).toBe(0);
  });

  it("runs an irreversible call a human approved (by toolUseId), and says its risk", async () => {
    // Prepare
    const { runner, call, outbox } = setup();
    const approvedCall = call("notify", { channel: "ops", message: "deploying" });

    // Act
    const outcome = await runner.run(
      approvedCall,
      callContext({ grantedTools: ALL_TOOLS, approvedCalls: [approvedCall.toolUseId] }),
    );

    // Assess
    expect(outcome.errorName).toBeUndefined();
    expect(outbox.messages.size).toBe(1);
    expect(runner.riskOf(approvedCall)).toBe("irreversible");
    expect(runner.riskOf(call("http_request", { method: "GET", url: "https://example.com" }))).toBe("read");
    expect(runner.riskOf(call("no_such_tool", {}))).toBeUndefined();
  });

  it("throws when the store itself is unavailable: an infrastructure failure is retried, not told to the model", async () => {
    // Prepare
    const { runner, call } = setup({ workspace: new UnavailableWorkspace() });

    // Act
    const run = runner.run(call("workspace_read", { path: "a.txt" }), callContext());

    // Assess
    await expect(run).rejects.toThrow("store unavailable");
  });
});

describe("createBuiltInToolRunner: notify", () => {
  /** The context Act gives one call: its own idempotency key, derived from the call's identity. */
  const notifyContext = (toolUseId: string): ToolCallContext => {
    const base = callContext({ grantedTools: ALL_TOOLS, preAuthorized: ["notify"] });
    return { ...base, idempotencyKey: toolCallIdempotencyKey({ ...base, toolUseId }) };
  };

  it("sends once for the same call retried, with the call's idempotency key as messageId", async () => {
    // Prepare
    const { runner, call, outbox } = setup();
    const notify = call("notify", { channel: "ops", message: "release is out" }, "tooluse_notify");

    // Act
    const first = await runner.run(notify, notifyContext("tooluse_notify"));
    const retried = await runner.run(notify, notifyContext("tooluse_notify"));

    // Assess
    const messages = await outbox.listMessages("g-tools");
    const messageId = notifyMessageId(
      toolCallIdempotencyKey({ goalId: "g-tools", runId: "r1", iteration: 3, toolUseId: "tooluse_notify" }),
    );
    expect(messages).toEqual([
      {
        messageId,
        goalId: "g-tools",
        tenantId: "local",
        channel: "ops",
        message: "release is out",
        createdAt: NOW.toISOString(),
      },
    ]);
    expect(first.result.content).toEqual([
      { json: { messageId, channel: "ops", createdAt: NOW.toISOString() } },
    ]);
    expect(retried.observation.sha256).toBe(first.observation.sha256);
  });

  it("sends again for a different call of the same iteration", async () => {
    // Prepare
    const { runner, call, outbox } = setup();

    // Act
    await runner.run(call("notify", { channel: "ops", message: "one" }, "t-1"), notifyContext("t-1"));
    await runner.run(call("notify", { channel: "ops", message: "two" }, "t-2"), notifyContext("t-2"));

    // Assess
    expect((await outbox.listMessages("g-tools")).map((message) => message.message)).toEqual(["one", "two"]);
  });
});

describe("toolCallIdempotencyKey", () => {
  it("is the same for the same call and differs when any part of its identity does", () => {
    // Prepare
    const call = { goalId: "g-1", runId: "r1", iteration: 2, toolUseId: "t-1" };

    // Act
    const key = toolCallIdempotencyKey(call);

    // Assess
    expect(toolCallIdempotencyKey({ ...call })).toBe(key);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    const others = [
      { ...call, goalId: "g-2" },
      { ...call, runId: "r2" },
      { ...call, iteration: 3 },
      { ...call, toolUseId: "t-2" },
    ].map(toolCallIdempotencyKey);
    expect(new Set([key, ...others]).size).toBe(5);
  });
});

describe("createBuiltInToolRunner: output over the inline bound", () => {
  it("stores a large result as a workspace artifact and sends the model only a reference", async () => {
    // Prepare
    const { runner, call, workspace } = setup({ inlineLimitBytes: 1024 });
    const context = callContext();
    for (let index = 0; index < 40; index++) {
      await runner.run(
        call("workspace_write", { path: `docs/file-${index}.md`, content: `file ${index}` }),
        context,
      );
    }

    // Act
    const listed = await runner.run(call("workspace_list", {}, "tooluse_big"), context);

    // Assess
    const path = ".artifacts/3-tooluse_big.txt";
    const artifact = await workspace.readFile("g-tools", path);
    expect(artifact?.content).toContain("docs/file-39.md");
    expect(artifact?.writtenBy).toEqual({ runId: "r1", iteration: 3, toolUseId: "tooluse_big" });
    expect(listed.artifacts).toEqual([{ path, sha256: artifact?.sha256 }]);
    expect(Buffer.byteLength(textOf(listed))).toBeLessThanOrEqual(1024);
    expect(textOf(listed)).not.toContain("docs/file-39.md");
    expect(listed.result.content).toEqual([
      {
        json: expect.objectContaining({
          outputTooLarge: expect.objectContaining({ path, sha256: artifact?.sha256, inlineLimitBytes: 1024 }),
          head: expect.stringContaining("docs/file-0.md"),
        }),
      },
    ]);
  });

  it("keeps every result the model sees within the bound, and the observation bounded but hashed in full", async () => {
    // Prepare
    const { runner, call } = setup({ inlineLimitBytes: 1024 });
    const context = callContext();
    const big = "é".repeat(5000);
    const write = await runner.run(call("workspace_write", { path: "big.txt", content: big }), context);

    // Act
    const read = await runner.run(call("workspace_read", { path: "big.txt" }), context);

    // Assess
    for (const outcome of [write, read]) {
      expect(Buffer.byteLength(textOf(outcome))).toBeLessThanOrEqual(1024);
    }
    expect(read.observation.resultJson).toBeUndefined();
    expect(Buffer.byteLength(read.observation.resultText ?? "")).toBeLessThanOrEqual(1024);
    expect(read.observation.resultText).toMatch(/^é+…$/);
    const full = {
      path: "big.txt",
      version: 1,
      sha256: sha256Hex(big),
      size: 10_000,
      offset: 0,
      content: big,
      remainingChars: 0,
    };
    expect(read.observation.sha256).toBe(sha256Hex(canonicalJson(full)));
    // The file already holds the text: the reference points at it and no copy is written.
    expect(read.artifacts).toEqual([]);
    expect(read.result.content).toEqual([
      {
        json: expect.objectContaining({
          totalChars: 5000,
          outputTooLarge: expect.objectContaining({ path: "big.txt", sha256: sha256Hex(big), size: 10_000 }),
        }),
      },
    ]);
  });

  it("answers ToolResultTooLarge naming the size and the limit when even the store cannot keep a result", async () => {
    // Prepare: the store keeps files up to 2 KB, and the listing is larger
    const workspace = new InMemoryWorkspace(() => NOW, 2048);
    const { runner, call } = setup({ inlineLimitBytes: 512, workspace });
    const context = callContext();
    for (let index = 0; index < 60; index++) {
      await runner.run(call("workspace_write", { path: `docs/file-${index}.md`, content: "x" }), context);
    }

    // Act
    const listed = await runner.run(call("workspace_list", {}, "tooluse_huge"), context);

    // Assess
    expect(listed.result.status).toBe("error");
    expect(listed.errorName).toBe("ToolResultTooLarge");
    expect(textOf(listed)).toMatch(
      /ToolResultTooLarge: The result of workspace_list is \d+ bytes; tool results are kept up to 2048 bytes/,
    );
    expect(listed.artifacts).toEqual([]);
  });

  it("answers WorkspaceFileTooLarge naming the size and the limit for a file over the maximum", async () => {
    // Prepare
    const workspace = new InMemoryWorkspace(() => NOW, 2048);
    const { runner, call } = setup({ workspace });

    // Act
    const written = await runner.run(
      call("workspace_write", { path: "out/big.csv", content: "y".repeat(2049) }),
      callContext(),
    );

    // Assess
    expect(written.errorName).toBe("WorkspaceFileTooLarge");
    expect(textOf(written)).toContain(
      "Cannot write 'out/big.csv': 'out/big.csv' is 2049 bytes; the workspace keeps files up to 2048 bytes",
    );
    expect(await workspace.readFile("g-tools", "out/big.csv")).toBeUndefined();
  });

  it("names overflow artifacts with paths the workspace and the step log accept", () => {
    // Act
    const paths = [
      overflowArtifactPath(0, "tooluse_AbC-12"),
      overflowArtifactPath(7, "../../etc/passwd"),
      overflowArtifactPath(7, "a/b"),
      overflowArtifactPath(7, "a_b"),
    ];

    // Assess
    for (const path of paths) {
      expect(WorkspacePathSchema.safeParse(path).success).toBe(true);
      expect(ArtifactObservationSchema.safeParse({ path, sha256: sha256Hex("x") }).success).toBe(true);
    }
    expect(paths[0]).toBe(".artifacts/0-tooluse_AbC-12.txt");
    expect(new Set(paths).size).toBe(paths.length);
  });

  it("produces outcomes a step record accepts", async () => {
    // Prepare
    const { runner, call } = setup({ inlineLimitBytes: 1024 });
    const context = callContext();
    const outcomes = [
      await runner.run(call("workspace_write", { path: "a.md", content: "x".repeat(3000) }), context),
      await runner.run(call("workspace_read", { path: "a.md" }), context),
      await runner.run(call("nope", {}), context),
    ];

    // Act
    const parsed = StepRecordSchema.safeParse({
      goalId: "g-tools",
      step: 1,
      runId: "r1",
      iteration: 3,
      turn: {
        modelId: "scripted:test",
        stopReason: "tool_use",
        content: [{ text: "working" }],
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
      toolResults: outcomes.map((outcome) => outcome.result),
      observations: {
        artifacts: outcomes.flatMap((outcome) => outcome.artifacts),
        toolResults: outcomes.map((outcome) => outcome.observation),
      },
      at: NOW.toISOString(),
    });

    // Assess
    expect(parsed.error).toBeUndefined();
  });
});
