import { evidenceFor } from "../../goal/evidence/check-evidence";
import { PROMPT_PROGRESS_NOTES } from "../../goal/evidence/progress-notes";
import type { GoalRecord, RevisionType } from "../../goal/goal-record";
import { clip } from "../../goal/text";
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
    ...section("Refinements (they narrow the current work)", bullets(revisionTexts(record, "refinement"))),
    ...section("Corrections from humans", bullets(revisionTexts(record, "corrective"))),
    ...section("Latest revision", latestRevision(record)),
  ];
  return `${lines.join("\n")}\n`;
}

/** At most this many of the human texts of one kind are shown (the newest), each clipped. */
const SHOWN_REVISION_TEXTS = 5;

function revisionTexts(record: GoalRecord, type: RevisionType): string[] {
  return record.revisionLog
    .filter((entry) => entry.type === type)
    .slice(-SHOWN_REVISION_TEXTS)
    .map((entry) => clip(entry.content, 1500));
}

/**
 * The revision the goal is at, and what reconcile decided about the work done before it (DESIGN §5:
 * shown in every prompt of the revision, so the agent acts on it). A confirmed contract is its own
 * revision; the decision of the revision that proposed it is shown with it.
 */
function latestRevision(record: GoalRecord): string[] {
  const latest = record.revisionLog.at(-1);
  if (!latest) return [];
  const decided = [...record.revisionLog].reverse().find((entry) => entry.reconcile !== undefined);
  const reconcile = decided && decided.revision >= latest.revision - 1 ? decided.reconcile : undefined;
  const list = (items: readonly string[]) =>
    items
      .slice(0, 10)
      .map((text) => clip(text, 200))
      .join("; ");
  return [
    `- revision ${latest.revision} (${latest.type}, by ${latest.requestedBy}): ${item(clip(latest.content, 1500))}`,
    ...(reconcile?.summary
      ? [`- what it means for the work so far: ${item(clip(reconcile.summary, 1000))}`]
      : []),
    ...(reconcile?.keep.length ? [`- still valid: ${item(list(reconcile.keep))}`] : []),
    ...(reconcile?.discard.length ? [`- no longer counts: ${item(list(reconcile.discard))}`] : []),
    ...(reconcile?.add.length ? [`- new work: ${item(list(reconcile.add))}`] : []),
  ];
}

/**
 * The parts of the goal that move within a revision: weak evidence, corrections, the latest progress
 * notes. A progress note whose line one of `shown` already holds (the earlier states the prompt
 * repeats verbatim) is left out: the prompt shows it once, not once per call.
 */
export function goalProgressText(record: GoalRecord, shown: readonly string[] = []): string {
  const weak = record.spec.successChecks
    .filter((check) => evidenceFor(record, check)?.strength === "weak")
    .map((check) => `- ${check.id}: satisfied by a model judgement only (weak evidence)`);
  const lines = [
    ...section("Weak evidence", weak),
    ...section("Human review", bullets(reviewNotes(record))),
    ...section(
      "Corrections requested",
      bullets(record.pendingCorrections?.map((correction) => correction.content)),
    ),
    ...section(
      "Recent progress",
      bullets(record.progressNotes.slice(-PROMPT_PROGRESS_NOTES)).filter(
        (line) => !shown.some((text) => text.includes(`${line}\n`) || text.endsWith(line)),
      ),
    ),
  ];
  return lines.join("\n").trim();
}

/** A human's rejection of an `approval` success check, shown until the check is asked again. */
function reviewNotes(record: GoalRecord): string[] {
  const review = record.checkApproval;
  if (review?.outcome !== "rejected" || review.decidedBy === undefined) return [];
  const why = review.comment ? `: ${review.comment}` : " (no comment)";
  return [`success check ${review.checkId} was rejected by ${review.decidedBy}${why}`];
}
