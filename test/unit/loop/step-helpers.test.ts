import { describe, expect, it } from "vitest";
import type { GoalRecord } from "../../../lambdas/core/goal/goal-record";
import { parseGoalSpec } from "../../../lambdas/core/goal/goal-spec";
import { failureStopReason } from "../../../lambdas/core/loop/record-failure";
import { nextRunId } from "../../../lambdas/core/loop/run-ids";
import { parseVerdict } from "../../../lambdas/core/loop/verify/judge";
import { stableGoalBlock } from "../../../lambdas/core/models/context/goal-prefix";
import { packContext } from "../../../lambdas/core/models/context/pack";
import { parseModelCallContext, withModelCallContext } from "../../../lambdas/core/models/model-call";
import { modelIdFor } from "../../../lambdas/core/models/model-tiers";
import { REASON_INSTRUCTIONS, stateText } from "../../../lambdas/core/patterns/react/reason-prompt";
import {
  type Message,
  ModelFatalError,
  ModelRetryableError,
  type ModelTurn,
} from "../../../lambdas/core/ports/model-client";
import type { StepRecord } from "../../../lambdas/core/ports/step-log";
import { calls, conversationProblems, newGoal, reactSpec, says, T0 } from "./support";

const FATAL = { fatalErrorNames: new Set(["AccessDeniedException", "ValidationError"]) };

/** The reason conversation over `recentSteps` as `packContext` builds it (no compaction, no tools). */
function reasonConversation(
  record: GoalRecord,
  recentSteps: readonly StepRecord[],
  iteration: number,
  modelId = "",
): Message[] {
  return packContext({
    modelId,
    instructions: REASON_INSTRUCTIONS,
    goalBlock: stableGoalBlock(record),
    history: { steps: recentSteps },
    state: stateText(record, iteration),
  }).messages;
}

function aGoal() {
  return newGoal(reactSpec(), { goalId: "g-test" }).record;
}

function aStep(step: number, turn: ModelTurn, withResults = true): StepRecord {
  const toolResults = turn.content.flatMap((block) =>
    "toolUse" in block && withResults
      ? [{ toolUseId: block.toolUse.toolUseId, status: "success" as const, content: [{ text: "ok" }] }]
      : [],
  );
  return {
    goalId: "g-test",
    step,
    runId: "r1",
    iteration: step - 1,
    turn,
    toolResults,
    observations: { artifacts: [], toolResults: [] },
    at: T0.toISOString(),
  };
}

describe("the reason conversation packContext builds over the steps", () => {
  it("keeps Converse's rules over steps with and without tool calls", () => {
    // Prepare
    const steps = [
      aStep(1, calls("workspace_list", {})),
      aStep(2, says("Thinking.")),
      aStep(3, calls("workspace_read", { path: "a" })),
    ];

    // Act
    const messages = reasonConversation({ ...aGoal(), steps: 3 }, steps, 3);

    // Assess
    expect(conversationProblems(messages)).toEqual([]);
    // The two assistant turns in a row (step 2 called no tool) become one message.
    expect(messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    const last = messages.at(-1);
    expect(last?.content.map((block) => Object.keys(block)[0])).toEqual(["toolResult", "text"]);
  });

  it("answers a tool call whose result was never recorded with an error result", () => {
    // Prepare
    const step = aStep(1, calls("workspace_list", {}), false);

    // Act
    const messages = reasonConversation({ ...aGoal(), steps: 1 }, [step], 1);

    // Assess
    expect(conversationProblems(messages)).toEqual([]);
    expect(messages.at(-1)?.content[0]).toMatchObject({ toolResult: { status: "error" } });
  });

  it("replaces an assistant turn without text or tool calls by a placeholder, as Converse refuses empty content", () => {
    // Act
    const messages = reasonConversation(
      { ...aGoal(), steps: 1 },
      [aStep(1, { ...says(""), stopReason: "max_tokens" })],
      1,
    );

    // Assess
    expect(messages[1]).toEqual({ role: "assistant", content: [{ text: "(no output)" }] });
  });
});

describe("parseVerdict", () => {
  it.each([
    ["PASS - the rubric holds", true],
    ["pass.", true],
    ["**PASS** quiet", true],
    ["FAIL: too loud", false],
    ["I think it passes", false],
    ["", false],
  ])("reads %j as satisfied=%s", (text, satisfied) => {
    expect(parseVerdict(says(text)).satisfied).toBe(satisfied);
  });
});

describe("model call context", () => {
  it("keeps the name and retryability and prefixes role and call", () => {
    // Act
    const retryable = withModelCallContext(
      new ModelRetryableError("ThrottlingException", "slow down"),
      "judge",
      4,
    );
    const fatal = withModelCallContext(new ModelFatalError("ValidationException", "bad"), "reason", 0);

    // Assess
    expect(retryable).toMatchObject({
      name: "ThrottlingException",
      retryable: true,
      message: "role=judge call=4: slow down",
    });
    expect(fatal).toMatchObject({
      name: "ValidationException",
      retryable: false,
      message: "role=reason call=0: bad",
    });
    expect(parseModelCallContext(retryable.message)).toEqual({ role: "judge", call: 4 });
    expect(parseModelCallContext("role=wizard call=1: nope")).toBeUndefined();
  });

  it("picks the model per role: the spec's role, its default, then the deployment's", () => {
    const spec = parseGoalSpec(reactSpec({ models: { default: "m-default", judge: "m-judge" } }));
    const tiers = { heavyModelId: "heavy", fastModelId: "fast" };
    expect(modelIdFor(spec, "judge", tiers)).toBe("m-judge");
    expect(modelIdFor(spec, "reason", tiers)).toBe("m-default");
    const plain = parseGoalSpec(reactSpec());
    // Without overrides each role gets its tier's model (lambdas/core/models/model-tiers.json).
    expect(modelIdFor(plain, "reason", tiers)).toBe("heavy");
    expect(modelIdFor(plain, "plan", tiers)).toBe("heavy");
    expect(modelIdFor(plain, "execute", tiers)).toBe("fast");
    expect(modelIdFor(plain, "judge", tiers)).toBe("fast");
  });
});

describe("failureStopReason", () => {
  it("reads the Lambda error's message from the Cause and the role from its prefix", () => {
    const cause = JSON.stringify({
      errorType: "AccessDeniedException",
      errorMessage: "role=judge call=2: no access",
    });
    expect(failureStopReason({ Error: "AccessDeniedException", Cause: cause }, FATAL)).toEqual({
      kind: "fatal_error",
      detail: "AccessDeniedException",
      message: "role=judge call=2: no access",
      role: "judge",
    });
  });

  it("takes a Cause that is not JSON as the message, and an unknown name as infrastructure", () => {
    expect(failureStopReason({ Error: "Lambda.Unknown", Cause: "out of memory" }, FATAL)).toEqual({
      kind: "infrastructure",
      detail: "Lambda.Unknown",
      message: "out of memory",
    });
    expect(failureStopReason({ Error: "States.Timeout" }, FATAL).message).toBe("States.Timeout");
  });
});

describe("nextRunId", () => {
  it.each([
    ["r1", "r2"],
    ["r9", "r10"],
    ["run-41", "run-42"],
    ["first", "first-2"],
  ])("follows %s with %s", (runId, next) => {
    expect(nextRunId(runId)).toBe(next);
  });
});
