import { describe, expect, it } from "vitest";
import { canonicalJson, sha256Hex } from "../../../../lambdas/core/goal/canonical-json";
import type { JsonValue } from "../../../../lambdas/core/goal/goal-change";
import { type PlanStep, type PlanStepInput, PlanStepSchema } from "../../../../lambdas/core/goal/plan";
import { classifyStep } from "../../../../lambdas/core/patterns/plan-execute/classify";
import type { StepRecord } from "../../../../lambdas/core/ports/step-log";

interface Call {
  readonly tool: string;
  readonly status: "success" | "error";
  readonly json: JsonValue;
}

const ok = (tool: string, json: JsonValue): Call => ({ tool, status: "success", json });
/** A failed call as the tool runner records it: `{error, message}`. */
const failed = (tool: string, error: string, message = "it failed"): Call => ({
  tool,
  status: "error",
  json: { error, message },
});

/** The step Act logged for the executor's turn: its calls and their recorded results. */
function logged(calls: readonly Call[], text = "Doing the step."): StepRecord {
  return {
    goalId: "g-1",
    step: 1,
    runId: "r1",
    iteration: 0,
    turn: {
      modelId: "scripted:x",
      stopReason: calls.length > 0 ? "tool_use" : "end_turn",
      content: [
        { text },
        ...calls.map((call, index) => ({ toolUse: { toolUseId: `t${index}`, name: call.tool, input: {} } })),
      ],
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    },
    toolResults: calls.map((call, index) => ({
      toolUseId: `t${index}`,
      status: call.status,
      content:
        call.status === "error"
          ? [{ text: `${(call.json as { error: string }).error}: it failed` }]
          : [{ json: call.json }],
    })),
    observations: {
      artifacts: [],
      toolResults: calls.map((call) => ({
        tool: call.tool,
        status: call.status,
        resultJson: call.json,
        sha256: sha256Hex(canonicalJson(call.json)),
      })),
    },
    at: "2026-03-01T09:00:00.000Z",
  };
}

function planStep(overrides: Partial<PlanStepInput> = {}): PlanStep {
  return PlanStepSchema.parse({
    id: "fetch",
    action: "Fetch the changelog",
    tool: "http_request",
    expected: "the changelog",
    completion: { text: "the changelog is fetched" },
    ...overrides,
  });
}

describe("classifyStep", () => {
  it("calls a step done when its tool worked and its predicate holds", () => {
    // Act
    const plain = classifyStep(planStep(), logged([ok("http_request", { status: 200, body: "v2.0" })]));
    const predicate = classifyStep(
      planStep({ completion: { text: "names 2.0", expect: { contains: "v2.0" } } }),
      logged([ok("http_request", { status: 200, body: "v2.0 is out" })]),
    );

    // Assess
    expect(plain).toMatchObject({ outcome: "success", detail: expect.stringContaining("v2.0") });
    expect(predicate.outcome).toBe("success");
  });

  it("calls a result that works but misses the step's predicate below expectation", () => {
    // Act
    const result = classifyStep(
      planStep({ completion: { text: "names 2.0", expect: { contains: "v2.0" } } }),
      logged([ok("http_request", { status: 200, body: "v1.9" })]),
    );

    // Assess
    expect(result.outcome).toBe("below_expectation");
  });

  it.each([
    ["throttling", failed("deploy", "ThrottlingException"), "ThrottlingException"],
    ["a timeout", failed("deploy", "RequestTimeout"), "RequestTimeout"],
    ["a network failure", failed("http_request", "HttpRequestFailed"), "HttpRequestFailed"],
    ["an HTTP 503 answer", ok("http_request", { status: 503, body: "busy" }), "HttpStatus503"],
    ["an HTTP 429 answer", ok("http_request", { status: 429, body: "slow down" }), "HttpStatus429"],
    ["the executor's own bad input", failed("http_request", "InvalidToolInput"), "InvalidToolInput"],
  ])("calls %s a recoverable failure", (_what, call, errorName) => {
    // Act
    const result = classifyStep(planStep({ tool: call.tool }), logged([call]));

    // Assess
    expect(result).toMatchObject({ outcome: "recoverable_failure", errorName });
  });

  it.each([
    ["access denied", failed("deploy", "AccessDeniedException"), "AccessDeniedException"],
    [
      "a request the service rejects as invalid",
      failed("deploy", "ValidationException"),
      "ValidationException",
    ],
    [
      "a host outside the allow-list (policy)",
      failed("http_request", "HttpRequestRefused"),
      "HttpRequestRefused",
    ],
    ["a tool the goal may not use", failed("notify", "ToolNotGranted"), "ToolNotGranted"],
    ["a call a human rejected", failed("notify", "RejectedByHuman"), "RejectedByHuman"],
    ["an HTTP 403 answer", ok("http_request", { status: 403, body: "no" }), "HttpStatus403"],
  ])("calls %s an unrecoverable failure", (_what, call, errorName) => {
    // Act
    const result = classifyStep(planStep({ tool: call.tool }), logged([call]));

    // Assess
    expect(result).toMatchObject({ outcome: "unrecoverable_failure", errorName });
  });

  it("prefers an unrecoverable failure over a recoverable one among the step's calls", () => {
    // Act
    const result = classifyStep(
      planStep(),
      logged([failed("http_request", "HttpRequestFailed"), failed("http_request", "HttpRequestRefused")]),
    );

    // Assess
    expect(result).toMatchObject({ outcome: "unrecoverable_failure", errorName: "HttpRequestRefused" });
  });

  it("judges the step by its own tool's calls when the executor also called another", () => {
    // Act
    const result = classifyStep(
      planStep(),
      logged([failed("workspace_read", "FileNotFound"), ok("http_request", { status: 200, body: "ok" })]),
    );

    // Assess
    expect(result.outcome).toBe("success");
  });

  it("takes an answer without a tool call as new information for a step that names a tool, as the result otherwise", () => {
    // Act
    const newInformation = classifyStep(
      planStep(),
      logged([], "The changelog moved to the wiki; fetch that instead."),
    );
    const answered = classifyStep(planStep({ tool: undefined }), logged([], "Version 2.0 adds plans."));

    // Assess
    expect(newInformation).toEqual({
      outcome: "new_information",
      detail: "The changelog moved to the wiki; fetch that instead.",
    });
    expect(answered).toEqual({ outcome: "success", detail: "Version 2.0 adds plans." });
  });
});
