import { canonicalJson } from "../../goal/canonical-json";
import type { GoalRecord } from "../../goal/goal-record";
import type { SuccessCheck } from "../../goal/goal-spec";
import { packRolePrompt } from "../../models/context/role-prompt";
import { turnText } from "../../models/model-answer";
import { type ModelChoice, thinkingFields } from "../../models/model-thinking";
import type { ModelRequest, ModelTurn } from "../../ports/model-client";
import type { StepRecord } from "../../ports/step-log";

/** Output budget of a verdict: one word and one sentence. */
export const JUDGE_MAX_TOKENS = 512;
/** How much of each file or tool result the judge sees. */
export const JUDGE_EXCERPT_CHARS = 4000;

/**
 * The judge prompt contract: the judge answers PASS or FAIL as its first word, then one sentence why.
 * Only a first word PASS (any case, punctuation ignored) satisfies the check; anything else, an empty
 * answer included, is FAIL. The verdict is kept as weak evidence, labelled as model judgement.
 */
// One string of literals, not lines joined: esbuild can then leave it out of a bundle that never judges.
export const JUDGE_INSTRUCTIONS =
  "You judge whether one success check of a goal is met, using only the evidence given.\n" +
  "Claims by the agent are not evidence; files and tool results are.\n" +
  "Answer with PASS or FAIL as your first word, then one sentence why. Anything else counts as FAIL.";

/**
 * The role a verdict call plays: `judge` in ReAct and Plan-and-Execute, `evaluate` in Reflexion
 * (its evaluator). Same prompt contract; the role keys the checkpoint, the fixture and the cost.
 */
export type JudgeRole = "judge" | "evaluate";

/** A file the step wrote, as the judge sees it. */
export interface JudgedFile {
  readonly path: string;
  readonly content: string;
}

function excerpt(text: string): string {
  return text.length > JUDGE_EXCERPT_CHARS ? `${text.slice(0, JUDGE_EXCERPT_CHARS)}…(truncated)` : text;
}

/** The evidence of one step: the agent's words (marked as claims), its tool results and its files. */
export function judgeEvidenceText(step: StepRecord, files: readonly JudgedFile[]): string {
  const said = turnText(step.turn);
  const results = step.observations.toolResults.map((result, index) => {
    const body =
      result.resultText ?? (result.resultJson === undefined ? "" : canonicalJson(result.resultJson));
    return `Tool result ${index + 1} (${result.tool}, ${result.status}):\n${excerpt(body)}`;
  });
  const written = files.map((file) => `File ${file.path}:\n${excerpt(file.content)}`);
  return [
    `The agent said (a claim, not evidence):\n${said.trim() === "" ? "(nothing)" : excerpt(said)}`,
    ...(results.length > 0 ? results : ["No tool results."]),
    ...(written.length > 0 ? written : ["No files written."]),
  ].join("\n\n");
}

export interface JudgeRequestInput {
  readonly record: GoalRecord;
  readonly check: SuccessCheck & { verify: { kind: "model_judge" } };
  readonly evidence: string;
  /** The role's model and its thinking (`modelFor`). */
  readonly model: ModelChoice;
  readonly call: number;
  /** @default "judge" */
  readonly role?: JudgeRole;
}

/** The `judge` (or `evaluate`) request for one model_judge check. */
export function judgeRequest(input: JudgeRequestInput): ModelRequest {
  const { record, check } = input;
  const question = [
    `Success check ${check.id}: ${check.description}`,
    `Rubric: ${check.verify.rubric}`,
    "",
    "Evidence from the latest step:",
    input.evidence,
    "",
    "Is the check met? Answer PASS or FAIL first.",
  ].join("\n");
  // Stable prefix (instructions, goal block, cache point on models that cache), then what moves.
  const packed = packRolePrompt({
    modelId: input.model.modelId,
    instructions: JUDGE_INSTRUCTIONS,
    record,
    show: { checks: true, progress: true },
    question,
  });
  return {
    modelId: input.model.modelId,
    goalId: record.goalId,
    role: input.role ?? "judge",
    call: input.call,
    system: packed.system,
    messages: packed.messages,
    ...thinkingFields(input.model, JUDGE_MAX_TOKENS),
  };
}

export interface Verdict {
  readonly satisfied: boolean;
  /** The judge's whole answer (kept, truncated, beside the evidence). */
  readonly text: string;
}

/** Reads a judge turn by the contract above. */
export function parseVerdict(turn: ModelTurn): Verdict {
  const text = turnText(turn).trim();
  const firstWord = text
    .split(/\s+/, 1)[0]
    ?.replace(/[^A-Za-z]/g, "")
    .toUpperCase();
  return { satisfied: firstWord === "PASS", text: text === "" ? "(empty answer)" : text };
}
