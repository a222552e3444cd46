import { canonicalJson, sha256Hex } from "../../goal/canonical-json";
import { satisfiedCheckIds, unsatisfiedCheckIds } from "../../goal/evidence/check-evidence";
import type { Evidence } from "../../goal/evidence/evidence";
import type { JsonValue } from "../../goal/goal-change";
import type { GoalRecord } from "../../goal/goal-record";
import { SPAWN_SUBGOAL_TOOL, type SubgoalEntry } from "../../goal/subgoals";
import type { ToolUseBlock } from "../../ports/model-client";
import type { ToolOutcome } from "../../ports/tool-runner";

/** The error names a spawn call's result carries when its child did not complete. */
const ENDED_AS_ERROR: Readonly<Record<string, string>> = {
  cancelled: "SubgoalCancelled",
  terminated: "SubgoalTerminated",
};

/**
 * What a `spawn_subgoal` call answers once its child ended: the child's status, its satisfied and
 * unsatisfied checks, references to its evidence (artifact path and hash, tool and result hash,
 * approval), its usage and why it stopped. Success for a completed child, an error named
 * `SubgoalCancelled` / `SubgoalTerminated` otherwise; a refused call answers its refusal. This is
 * the parent's evidence: a `tool_result` check on `spawn_subgoal` is judged against it.
 */
export function subgoalOutcome(
  call: ToolUseBlock,
  entry: SubgoalEntry | undefined,
  child: GoalRecord | undefined,
): ToolOutcome {
  if (entry?.status === "refused" && entry.refusal) {
    return outcome(call, "error", entry.refusal.name, {
      error: entry.refusal.name,
      message: entry.refusal.message,
    });
  }
  if (!entry?.goalId || !child || child.goalId !== entry.goalId) {
    const message = "The sub-goal was not started; call spawn_subgoal again in a new turn.";
    return outcome(call, "error", "SubgoalNotStarted", { error: "SubgoalNotStarted", message });
  }
  const value = childOutcome(child);
  const errorName = ENDED_AS_ERROR[child.status];
  return errorName === undefined
    ? outcome(call, "success", undefined, value)
    : outcome(call, "error", errorName, { error: errorName, ...value });
}

/** The child's outcome as plain JSON (what the model and the parent's checks read). */
export function childOutcome(child: GoalRecord): Record<string, JsonValue> {
  const { usage, stopReason } = child;
  return {
    goalId: child.goalId,
    status: child.status,
    pattern: child.pattern,
    objective: child.spec.objective,
    satisfiedChecks: satisfiedCheckIds(child),
    unsatisfiedChecks: unsatisfiedCheckIds(child),
    evidence: child.evidence.map(evidenceReference),
    usage: {
      modelCalls: usage.modelCalls,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      costUsd: usage.costUsd,
    },
    steps: child.steps,
    ...(stopReason
      ? { stopReason: { kind: stopReason.kind, detail: stopReason.detail, message: stopReason.message } }
      : {}),
  };
}

/** A child's evidence as the parent sees it: what proves the check, never the content itself. */
function evidenceReference(evidence: Evidence): Record<string, JsonValue> {
  const { checkId, kind } = evidence;
  if (evidence.kind === "artifact") return { checkId, kind, path: evidence.path, sha256: evidence.sha256 };
  if (evidence.kind === "tool_result")
    return { checkId, kind, tool: evidence.tool, resultSha256: evidence.resultSha256 };
  if (evidence.kind === "approval")
    return { checkId, kind, approvalId: evidence.approvalId, decidedBy: evidence.decidedBy };
  return { checkId, kind, strength: "weak", verdict: evidence.verdict };
}

function outcome(
  call: ToolUseBlock,
  status: "success" | "error",
  errorName: string | undefined,
  value: Record<string, JsonValue>,
): ToolOutcome {
  const text = errorName === undefined ? JSON.stringify(value) : `${errorName}: ${JSON.stringify(value)}`;
  return {
    result: {
      toolUseId: call.toolUseId,
      status,
      content: status === "success" ? [{ json: value }] : [{ text }],
    },
    ...(errorName === undefined ? {} : { errorName }),
    observation: {
      tool: SPAWN_SUBGOAL_TOOL,
      status,
      resultText: text,
      resultJson: value,
      sha256: sha256Hex(canonicalJson(value)),
    },
    artifacts: [],
  };
}
