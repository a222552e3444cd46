import { evidenceFor } from "./check-evidence";
import type { GoalRecord } from "./goal-record";
import { PROMPT_PROGRESS_NOTES } from "./progress-notes";

/**
 * Human text is data: continuation lines are indented so no line of it can pose as a section of
 * the block, and carriage returns and trailing spaces never make two equal records render apart.
 */
export function blockItem(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n    ");
}

/** A titled section of a goal block, left out when it has no lines. */
export function blockSection(title: string, lines: readonly string[]): string[] {
  return lines.length === 0 ? [] : ["", `${title}:`, ...lines];
}

/**
 * The goal as every prompt shows it: objective, numbered success checks (satisfied ones marked),
 * constraints, scope, context notes, pending corrections and the last three progress notes. Same
 * record, same bytes: nothing here depends on time, locale or key order, so a prompt cache can use it.
 */
export function renderGoalBlock(record: GoalRecord): string {
  const { spec } = record;
  const checks = spec.successChecks.map((check, index) => {
    const evidence = evidenceFor(record, check);
    const mark = evidence ? (evidence.strength === "weak" ? "[x] (weak: model judgement)" : "[x]") : "[ ]";
    return `${index + 1}. ${mark} ${check.id}: ${blockItem(check.description)} (verify: ${check.verify.kind})`;
  });
  const bullets = (texts: readonly string[] | undefined) =>
    (texts ?? []).map((text) => `- ${blockItem(text)}`);
  const lines = [
    `GOAL (revision ${record.revision})`,
    `Objective: ${blockItem(spec.objective)}`,
    ...blockSection("Success checks", checks),
    ...blockSection("Constraints", bullets(spec.constraints)),
    ...blockSection("Scope", bullets(spec.scope)),
    ...blockSection("Context from humans", bullets(record.contextNotes)),
    ...blockSection(
      "Corrections requested",
      bullets(record.pendingCorrections?.map((correction) => correction.content)),
    ),
    ...blockSection("Recent progress", bullets(record.progressNotes.slice(-PROMPT_PROGRESS_NOTES))),
  ];
  return `${lines.join("\n")}\n`;
}
