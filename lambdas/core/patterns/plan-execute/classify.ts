import { toolResultMeets } from "../../goal/evidence/judge-checks";
import type { PlanStep, StepOutcome } from "../../goal/plan";
import { clip } from "../../goal/text";
import { type CallResult, callResults, errorNameOf } from "../../loop/tool-call-results";
import { turnText } from "../../models/model-answer";
import type { StepRecord } from "../../ports/step-log";

/** How much of a result or an explanation the record keeps for prompts and events. */
export const RESULT_EXCERPT = 600;

/** What Observe made of the executed step: its outcome, the error's name, and a bounded excerpt. */
export interface StepClassification {
  readonly outcome: StepOutcome;
  /** The failing call's error name (`AccessDeniedException`, `HttpStatus503` …). */
  readonly errorName?: string;
  /** The result (success), the error (failures) or the executor's explanation (new information). */
  readonly detail: string;
}

/**
 * Errors no retry can fix (DESIGN §3): access denied, a request the service rejects as invalid, a
 * safety policy, a tool the goal may not use, a host outside the allow-list, a human's refusal.
 * The model's own bad input (`InvalidToolInput`, `UnknownTool`) is not one of them.
 */
const UNRECOVERABLE =
  /AccessDenied|Unauthori[sz]ed|Forbidden|NotAuthorized|ValidationException|Policy|Guardrail|ContentFiltered|ToolNotGranted|HttpRequestRefused|ApprovalRequired|RejectedByHuman|ApprovalExpired|HttpStatus(400|401|403|422)$/;

export function isUnrecoverable(errorName: string): boolean {
  return UNRECOVERABLE.test(errorName);
}

function loggedText(logged: StepRecord): string {
  return turnText(logged.turn).trim();
}

/** Whether the step's predicate holds for one of its results (no predicate: any successful call). */
function meetsExpectation(step: PlanStep, results: readonly CallResult[]): boolean {
  const expect = step.completion.expect;
  if (!expect) return true;
  return results.some((result) =>
    toolResultMeets(
      { kind: "tool_result", tool: result.tool, expect: { status: "success", ...expect } },
      result.observation,
    ),
  );
}

/**
 * Classifies the executor's logged step against its plan step. The calls that count are the ones
 * to the step's tool (all calls when the step names none or the executor used another). A failed
 * call decides by its error name: unrecoverable, else recoverable (transient errors and the
 * executor's own bad calls, which a retry with the error in the prompt may fix). All calls fine:
 * `success` when the step's predicate holds, else `below_expectation`. No call at all: the answer
 * of a step without a tool, or — for a step that names one — new information for the planner.
 */
export function classifyStep(step: PlanStep, logged: StepRecord): StepClassification {
  const all = callResults(logged);
  const text = loggedText(logged);
  if (all.length === 0) {
    if (logged.turn.stopReason === "max_tokens") {
      return {
        outcome: "recoverable_failure",
        errorName: "ToolCallTruncated",
        detail: clip(text, RESULT_EXCERPT),
      };
    }
    if (step.tool === undefined) return { outcome: "success", detail: clip(text, RESULT_EXCERPT) };
    return {
      outcome: "new_information",
      detail: clip(text || "The executor called no tool and gave no reason.", RESULT_EXCERPT),
    };
  }
  const own = all.filter((result) => result.tool === step.tool);
  const relevant = own.length > 0 ? own : all;
  const failures = relevant.flatMap((result) => {
    const errorName = errorNameOf(result);
    return errorName ? [{ errorName, result }] : [];
  });
  const fatal = failures.find((failure) => isUnrecoverable(failure.errorName));
  const failure = fatal ?? failures[0];
  if (failure) {
    return {
      outcome: fatal ? "unrecoverable_failure" : "recoverable_failure",
      errorName: failure.errorName,
      detail: clip(failure.result.text, RESULT_EXCERPT),
    };
  }
  const detail = clip(relevant.map((result) => result.text).join("\n"), RESULT_EXCERPT);
  return { outcome: meetsExpectation(step, relevant) ? "success" : "below_expectation", detail };
}
