import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAULT_INJECTION_ENV } from "../../lambdas/adapters/shared/fault-injection";
import type { ModelCallRecord } from "../../lib/local/bedrock/bedrock-endpoint";
import type { JsonObject, JsonValue } from "../../lib/local/shared/cloud-assembly-model";
import { allEvents, type E2eStack, followGoal, PROJECT_DIR, startE2eStack } from "./local-stack-harness";

/** A ReAct goal of three tool calls, each turn with its own thinking; the check is met by the third. */
const THREE_CALLS = {
  reason: [
    {
      toolUse: { name: "workspace_list", input: {} },
      reasoning: "The workspace may already hold notes: list it before writing anything.",
    },
    {
      toolUse: { name: "workspace_write", input: { path: "notes.md", content: "draft: loops pay once" } },
      reasoning: "Nothing is there yet. Draft the notes first, then the summary from them.",
    },
    {
      toolUse: {
        name: "workspace_write",
        input: { path: "summary.md", content: "# Release 2.0\n\nGoal loops pay for a model call once." },
      },
      reasoning: "The notes hold the point; the summary names 2.0 and satisfies the check.",
    },
  ],
};

const threeCallGoal = (model: string) => ({
  objective: "Write a short release summary for 2.0 to summary.md, drafting notes first.",
  successChecks: [
    {
      id: "summary",
      description: "summary.md names 2.0",
      verify: { kind: "artifact", path: "summary.md", contains: "2.0" },
    },
  ],
  limits: { maxSteps: 10, maxCostUsd: 1 },
  pattern: "react",
  models: { default: `scripted:${model}` },
});

/** A goal long enough to compact (13 steps with the stack's tiny context budget), then done. */
const LONG_STEPS = 14;
const LONG = {
  reason: Array.from({ length: LONG_STEPS }, (_, index) => ({
    toolUse: {
      name: "workspace_write",
      input: {
        path: "report.md",
        content: index === LONG_STEPS - 1 ? "final report" : `draft ${index + 1}: ${"notes ".repeat(40)}`,
      },
    },
  })),
  summarize: [{ text: "Drafts 1 to 8 of report.md written." }, { text: "Drafts 1 to 16 written." }],
};

const asObject = (value: JsonValue | undefined): JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
const asArray = (value: JsonValue | undefined): JsonValue[] => (Array.isArray(value) ? value : []);
const contentOf = (message: JsonValue | undefined) => asArray(asObject(message).content);
const responseContent = (record: ModelCallRecord | undefined) =>
  asArray(asObject(asObject(record?.response?.output).message).content);
const toolUseIdOf = (content: readonly JsonValue[]) =>
  asObject(asObject(content.find((block) => "toolUse" in asObject(block))).toolUse).toolUseId;

/** The successful calls of one role of a goal, by call number. */
function callsOf(e2e: E2eStack, goalId: string, role: string): ModelCallRecord[] {
  return e2e.stack.bedrock
    .calls()
    .filter((record) => record.goalId === goalId && record.role === role && record.error === undefined)
    .sort((a, b) => a.call - b.call);
}

describe("thinking against the strict local Bedrock endpoint", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    // A context budget small enough that the long goal compacts (the three-call goal never does).
    e2e = await startE2eStack({ environment: { CONTEXT_BUDGET_TOKENS: "256" } });
    e2e.writeFixture("three-calls", THREE_CALLS);
    e2e.writeFixture("long-thinking", LONG);
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it("completes a ReAct goal of three tool calls, each reason call carrying the previous turn's reasoning block verbatim", async () => {
    // Act
    const accepted = await e2e.client.submitGoal(threeCallGoal("three-calls"));
    const { final } = await followGoal(e2e.client, accepted.goalId);

    // Assess
    expect(final.status).toBe("completed");
    expect(final.steps).toBe(3);
    const reason = callsOf(e2e, accepted.goalId, "reason");
    expect(reason.map((record) => record.call)).toEqual([0, 1, 2]);
    for (const index of [1, 2]) {
      const previous = responseContent(reason[index - 1]);
      const sentBack = asArray(reason[index]?.request.messages).find(
        (message) =>
          asObject(message).role === "assistant" && toolUseIdOf(contentOf(message)) === toolUseIdOf(previous),
      );
      // The reasoning block first, as answered: its text and signature, then the tool call
      expect(contentOf(sentBack)).toEqual(previous);
      expect(asObject(previous[0]).reasoningContent).toMatchObject({
        reasoningText: { text: THREE_CALLS.reason[index - 1]?.reasoning, signature: expect.any(String) },
      });
    }
    // Every request asked for the reason role's default thinking: adaptive, effort high, with summaries
    for (const record of reason) {
      expect(record.request.additionalModelRequestFields).toEqual({
        thinking: { type: "adaptive", display: "summarized" },
        output_config: { effort: "high" },
      });
    }
    // Why the agent acted: each call's reasoning summary in its event, the latest in the snapshot
    const events = await allEvents(e2e.client, accepted.goalId);
    const usage = events.filter((event) => event.type === "model.usage");
    expect(usage.map((event) => event.reasoningSummary)).toEqual(
      THREE_CALLS.reason.map((turn) => turn.reasoning),
    );
    expect(final.reasoningByRole.reason?.summary).toBe(THREE_CALLS.reason[2]?.reasoning);
    expect(JSON.stringify(events)).not.toMatch(/"signature"/);
  });

  it("sends a GoalSpec's summarize effort low, and goes on after a compaction that drops the older reasoning", async () => {
    // Act
    const accepted = await e2e.client.submitGoal({
      objective: "Write the final report to report.md, one draft at a time.",
      successChecks: [
        {
          id: "report",
          description: "report.md is final",
          verify: { kind: "artifact", path: "report.md", contains: "final" },
        },
      ],
      limits: { maxSteps: 30, maxCostUsd: 1 },
      pattern: "react",
      models: { default: "scripted:long-thinking", thinking: { summarize: { effort: "low" } } },
    });
    const { final } = await followGoal(e2e.client, accepted.goalId, { deadlineMs: 180_000 });

    // Assess
    expect(final.status).toBe("completed");
    const summarize = callsOf(e2e, accepted.goalId, "summarize");
    expect(summarize.length).toBeGreaterThanOrEqual(1);
    expect(summarize[0]?.request.additionalModelRequestFields).toEqual({
      thinking: { type: "adaptive", display: "summarized" },
      output_config: { effort: "low" },
    });
    // The reason calls kept their own default (high); after the compaction, no reasoning block of
    // the earlier conversation is sent back, and the strict endpoint took every call
    const reason = callsOf(e2e, accepted.goalId, "reason");
    expect(reason).toHaveLength(LONG_STEPS);
    expect(asObject(asObject(reason[0]?.request.additionalModelRequestFields).output_config).effort).toBe(
      "high",
    );
    // The first call after the compaction: the summary opens its history (keepRecentSteps decides
    // which call that is), and none of the earlier conversation's reasoning follows it
    const compacted = reason.find((record) =>
      JSON.stringify(record.request.messages).includes("Drafts 1 to 8 of report.md written."),
    );
    expect(compacted?.call).toBeGreaterThan(8);
    expect(JSON.stringify(compacted?.request.messages)).not.toContain("reasoningContent");
    expect(
      e2e.stack.bedrock.calls().filter((record) => record.goalId === accepted.goalId && record.error),
    ).toEqual([]);
  });
});

describe("thinking with the round trip switched off (GOAL_LOOPS_FAULT_INJECTION=drop-reasoning)", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await startE2eStack({ environment: { [FAULT_INJECTION_ENV]: "drop-reasoning" } });
    e2e.writeFixture("three-calls-dropped", THREE_CALLS);
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it("fails the same goal with the strict endpoint's 400 at the second reason call", async () => {
    // Act
    const accepted = await e2e.client.submitGoal(threeCallGoal("three-calls-dropped"));
    const { final } = await followGoal(e2e.client, accepted.goalId);

    // Assess: a request the service refuses is a fatal model error: the goal ends, nothing is retried
    expect(final.status).toBe("terminated");
    expect(final.stopReason).toMatchObject({
      kind: "fatal_error",
      detail: "ValidationException",
      message: expect.stringContaining(
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`",
      ),
    });
    const refused = e2e.stack.bedrock
      .calls()
      .filter((record) => record.goalId === accepted.goalId && record.error);
    expect(refused.map((record) => [record.role, record.call, record.error])).toEqual([
      ["reason", 1, "ValidationException"],
    ]);
  });
});

/** `npx cdk synth` of the project's app with `config`, as a deployer runs it: its exit code and output. */
function cdkSynth(configFile: string, outDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "npx",
      ["cdk", "synth", "--quiet", "--no-notices", "--context", `config=${configFile}`, "--output", outDir],
      { cwd: PROJECT_DIR, env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: "true" } },
    );
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += String(chunk);
    });
    child.stderr.on("data", (chunk) => {
      output += String(chunk);
    });
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, output }));
  });
}

describe("synth with a thinking setting the model refuses", () => {
  it("fails `cdk synth` for thinking disabled on Claude Sonnet 5.5, naming the field", async () => {
    // Prepare
    const dir = mkdtempSync(join(tmpdir(), "goal-loops-thinking-config-"));
    const configFile = join(dir, "goal-loops.config.json");
    writeFileSync(configFile, JSON.stringify({ models: { thinking: { reason: { mode: "disabled" } } } }));
    const outDir = mkdtempSync(join(PROJECT_DIR, "cdk.out", "thinking-"));

    // Act
    const synth = await cdkSynth(configFile, outDir).finally(() => {
      rmSync(dir, { recursive: true, force: true });
      rmSync(outDir, { recursive: true, force: true });
    });

    // Assess
    expect(synth.code).not.toBe(0);
    expect(synth.output).toMatch(
      /models\.thinking\.reason\.mode: 'disabled' is refused by Claude Sonnet 5\.5/,
    );
  }, 300_000);
});
