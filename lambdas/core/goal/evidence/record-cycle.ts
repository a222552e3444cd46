import { sha256Hex } from "../canonical-json";
import { ValidationError } from "../errors";
import { type GoalChange, goalEvent, settle } from "../goal-change";
import type { NewGoalEvent } from "../goal-event";
import type { GoalRecord } from "../goal-record";
import { assertStatus, assertTransition } from "../goal-status";
import { parseOrThrow } from "../validation";
import { satisfiedCheckIds, unsatisfiedCheckIds } from "./check-evidence";
import {
  type CycleObservations,
  type CycleObservationsInput,
  CycleObservationsSchema,
} from "./cycle-observations";
import type { Evidence } from "./evidence";
import { newObservations, observationFingerprints, towardContract } from "./fingerprints";
import { judgeChecks } from "./judge-checks";
import { appendProgressNote } from "./progress-notes";

export interface CycleOptions {
  readonly now: Date;
  /** The iteration of the current run that produced the observations (audit trail). */
  readonly iteration: number;
  /**
   * Progress the pattern saw itself this cycle, in the progress note's words (a plan step that
   * succeeded). @default []
   */
  readonly progressFrom?: readonly string[];
  /**
   * The step was made under an earlier contract (before a redirect, pivot or modify_objective took
   * effect): it counts as a step, but proves nothing for the checks now in force. @default false
   */
  readonly underOldContract?: boolean;
  /**
   * Which of the cycle's fingerprints (see `cycleFingerprints`) an earlier step saw first, as the
   * goal store answers it (`GoalStore.seenBefore`): those are not new, so not progress. A record
   * written before fingerprints left it keeps its `seenFingerprints`, and they count as seen too.
   * @default [] (everything observed is new)
   */
  readonly seenBefore?: readonly string[];
}

/** The fingerprints of a cycle's observations, to ask the goal store which were seen before. */
export function cycleFingerprints(observationsInput: CycleObservationsInput): string[] {
  const observations = parseOrThrow(CycleObservationsSchema, observationsInput, "cycle observations");
  return observationFingerprints(observations).map((item) => item.fingerprint);
}

/** An artifact's content, when given, must be the file the hash names: otherwise `contains` is unproven. */
function assertContentMatchesHash(observations: CycleObservations): void {
  const issues = observations.artifacts.flatMap((artifact, index) =>
    artifact.content !== undefined && sha256Hex(artifact.content) !== artifact.sha256
      ? [
          {
            path: `artifacts.${index}.content`,
            message: `does not hash to the sha256 given for ${artifact.path}`,
          },
        ]
      : [],
  );
  if (issues.length > 0) {
    throw new ValidationError(
      `Invalid cycle observations: ${issues.map((issue) => issue.message).join("; ")}`,
      issues,
    );
  }
}

/** Event fields of a piece of evidence (evidence is plain JSON). */
function evidenceFields(evidence: Evidence): Record<string, string | number> {
  return { ...evidence };
}

/**
 * Records one verify cycle: judges the success checks from the recorded observations, decides whether
 * the evidence set changed (progress) and counts no-progress cycles. After `maxNoProgressCycles`
 * cycles in a row without progress the goal is paused. More model text or a model saying "done" is
 * never progress and never completes the goal.
 */
export function recordCycle(
  record: GoalRecord,
  observationsInput: CycleObservationsInput,
  options: CycleOptions,
): GoalChange {
  assertStatus(record, ["running"], "recordCycle");
  const observations = parseOrThrow(CycleObservationsSchema, observationsInput, "cycle observations");
  assertContentMatchesHash(observations);
  const { now, iteration } = options;
  const at = now.toISOString();

  const judged = options.underOldContract
    ? { evidence: record.evidence, recorded: [], revoked: [] }
    : judgeChecks(record, observations, { runId: record.runId, iteration, at });
  const seen = [...(record.seenFingerprints ?? []), ...(options.seenBefore ?? [])];
  const fresh = newObservations(observationFingerprints(observations), seen);
  const withEvidence = { ...record, evidence: judged.evidence };
  const satisfied = satisfiedCheckIds(withEvidence);
  const unsatisfied = unsatisfiedCheckIds(withEvidence);
  const before = new Set(record.lastCycle?.satisfiedChecks ?? []);
  const newlySatisfied = satisfied.filter((checkId) => !before.has(checkId));
  // Only what moves the goal toward its contract is progress; the rest is kept as "busy".
  const open = new Set(unsatisfiedCheckIds(record));
  const openChecks = options.underOldContract
    ? []
    : record.spec.successChecks.filter((check) => open.has(check.id));
  const judgedFresh = fresh.map((item) => ({ item, toward: towardContract(item, openChecks) }));
  const blockers = clearBlockers(record.openBlockers ?? [], observations);
  const reasons = [
    ...newlySatisfied.map((checkId) => `check ${checkId} satisfied`),
    ...judgedFresh.flatMap(({ item, toward }) => (toward ? [item.description] : [])),
    ...blockers.cleared.map((tool) => `blocker cleared: ${tool} succeeds after failing`),
    ...(options.progressFrom ?? []),
  ];
  const busy = judgedFresh.flatMap(({ item, toward }) => (toward ? [] : [item.description]));
  const stillOpen = new Set(unsatisfied);
  const partialChecks = [
    ...new Set([...(record.partialChecks ?? []), ...judgedFresh.flatMap(({ toward }) => toward ?? [])]),
  ].filter((checkId) => stillOpen.has(checkId));
  const progress = reasons.length > 0;
  const noProgressCycles = progress ? 0 : record.noProgressCycles + 1;
  const { maxNoProgressCycles } = record.spec.limits;
  const stalled = !progress && noProgressCycles >= maxNoProgressCycles;

  const claims = observations.modelClaims;
  const claimNote =
    claims.done && unsatisfied.length > 0
      ? `; model claimed done, unsatisfied: ${unsatisfied.join(", ")}`
      : "";
  const summary = progress
    ? `progress: ${reasons.join("; ")}`
    : `no progress (${noProgressCycles}/${maxNoProgressCycles})${claimNote}`;
  const note = `#${iteration} ${summary}${observations.note ? ` - ${observations.note}` : ""}`;

  let next: GoalRecord = {
    ...withEvidence,
    updatedAt: at,
    steps: record.steps + 1,
    runIteration: record.runIteration + 1,
    noProgressCycles,
    progressNotes: appendProgressNote(record.progressNotes, note),
    lastCycle: {
      runId: record.runId,
      iteration,
      progress,
      satisfiedChecks: satisfied,
      claimedDone: observations.modelClaims.done,
      at,
    },
    openBlockers: blockers.open,
    partialChecks,
  };

  const events: NewGoalEvent[] = [
    ...judged.recorded.map((evidence) => goalEvent(next, "evidence.recorded", now, evidenceFields(evidence))),
    ...judged.revoked.map((evidence) =>
      goalEvent(next, "evidence.revoked", now, {
        checkId: evidence.checkId,
        reason: "the artifact changed and no longer meets the check",
      }),
    ),
    goalEvent(next, progress ? "progress" : "no_progress", now, {
      iteration,
      reasons,
      ...(busy.length > 0 ? { busy } : {}),
      noProgressCycles,
      satisfiedChecks: satisfied,
      unsatisfiedChecks: unsatisfied,
      modelClaimedDone: claims.done,
      modelClaimedChecks: claims.satisfiedChecks,
    }),
  ];

  if (stalled) {
    assertTransition(record, "paused", "recordCycle", ["running"]);
    const stopReason = {
      kind: "no_progress" as const,
      detail: "maxNoProgressCycles",
      message: `${noProgressCycles} cycles in a row without progress (limit ${maxNoProgressCycles})`,
      at,
    };
    next = { ...next, status: "paused", activeTask: null, stopReason };
    events.push(goalEvent(next, "goal.paused", now, { stopReason }));
  }
  return settle(next, events);
}

/** At most this many tools are remembered as failing (the oldest is forgotten first). */
const MAX_OPEN_BLOCKERS = 20;

/**
 * Tools whose latest call failed are blockers; one whose call now succeeds is cleared (progress:
 * "a call that failed now succeeds"). In call order, so fail-then-succeed in one step clears it.
 */
function clearBlockers(
  open: readonly string[],
  observations: CycleObservations,
): { open: string[]; cleared: string[] } {
  const blocked = new Set(open);
  const cleared: string[] = [];
  for (const result of observations.toolResults) {
    if (result.status === "error") {
      blocked.delete(result.tool);
      blocked.add(result.tool);
    } else if (blocked.delete(result.tool)) {
      cleared.push(result.tool);
    }
  }
  return { open: [...blocked].slice(-MAX_OPEN_BLOCKERS), cleared: [...new Set(cleared)] };
}
