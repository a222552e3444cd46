import { evidenceFor } from "../../goal/evidence/check-evidence";
import { PROMPT_PROGRESS_NOTES } from "../../goal/evidence/progress-notes";
import type { GoalRecord } from "../../goal/goal-record";
import { blockItem as item, blockSection as section } from "./goal-block";

const bullets = (texts: readonly string[] | undefined) => (texts ?? []).map((text) => `- ${item(text)}`);

/**
 * The goal as the cacheable prefix shows it: only what a human revision changes (objective, success
 * checks, constraints, scope, context from humans). Which checks are satisfied, progress notes and
 * pending corrections change within a revision, so they go after the cache point (`goalProgressText`).
 * Same revision, same bytes: a prompt cache hits on every call of the revision.
 */
export function stableGoalBlock(record: GoalRecord): string {
  const { spec } = record;
  const checks = spec.successChecks.map(
    (check, index) => `${index + 1}. ${check.id}: ${item(check.description)} (verify: ${check.verify.kind})`,
  );
  const lines = [
    `GOAL (revision ${record.revision})`,
    `Objective: ${item(spec.objective)}`,
    ...section("Success checks", checks),
    ...section("Constraints", bullets(spec.constraints)),
    ...section("Scope", bullets(spec.scope)),
    ...section("Context from humans", bullets(record.contextNotes)),
  ];
  return `${lines.join("\n")}\n`;
}

/** The parts of the goal that move within a revision: weak evidence, corrections, the latest progress notes. */
export function goalProgressText(record: GoalRecord): string {
  const weak = record.spec.successChecks
    .filter((check) => evidenceFor(record, check)?.strength === "weak")
    .map((check) => `- ${check.id}: satisfied by a model judgement only (weak evidence)`);
  const lines = [
    ...section("Weak evidence", weak),
    ...section(
      "Corrections requested",
      bullets(record.pendingCorrections?.map((correction) => correction.content)),
    ),
    ...section("Recent progress", bullets(record.progressNotes.slice(-PROMPT_PROGRESS_NOTES))),
  ];
  return lines.join("\n").trim();
}
