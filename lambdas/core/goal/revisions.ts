import * as z from "../zod";
import { canonicalJson } from "./canonical-json";
import { RevisionNotFoundError, ValidationError } from "./errors";
import { type GoalChange, goalEvent, settle } from "./goal-change";
import type { NewGoalEvent } from "./goal-event";
import {
  type ContractProposal,
  CorrectionTargetSchema,
  type GoalRecord,
  type QueuedRevision,
  QueuedRevisionSchema,
  type ReconcileResult,
  ReconcileResultSchema,
  type RevisionLogEntry,
  type RevisionType,
} from "./goal-record";
import { type GoalSpec, GoalSpecSchema, type SuccessCheck } from "./goal-spec";
import { assertStatus, OPEN_STATUSES } from "./goal-status";
import { assertWithinJsonBounds, REVISION_BOUNDS } from "./json-bounds";
import { MAX_SAGA_STEPS } from "./saga";
import { parseOrThrow } from "./validation";

/** The revision types that may replace the success checks, and only with checks a human supplied. */
export const CHECK_CHANGING_REVISIONS: readonly RevisionType[] = ["modify_objective", "pivot", "redirect"];

/**
 * The fields of a human revision as a caller sends them; who asks is added by the door. A function,
 * called inside the schemas built from it, so that importing this module builds nothing.
 */
const revisionFields = () =>
  z.extend(
    z.pick(QueuedRevisionSchema, {
      type: true,
      successChecks: true,
      reason: true,
    }),
    {
      content: z.string().check(z.trim(), z.minLength(1, "must not be empty"), z.maxLength(8000)),
      target: z.optional(CorrectionTargetSchema),
    },
  ).shape;

/** Only a corrective revision names steps to undo; only the check-changing types replace checks. */
const checkRevisionFields = z.superRefine(
  (input: { type: RevisionType; target?: unknown; successChecks?: unknown }, ctx) => {
    if (input.target !== undefined && input.type !== "corrective") {
      ctx.addIssue({
        code: "custom",
        path: ["target"],
        message: `only a corrective revision names steps to undo, not ${input.type}`,
      });
    }
    if (input.successChecks !== undefined && !CHECK_CHANGING_REVISIONS.includes(input.type)) {
      ctx.addIssue({
        code: "custom",
        path: ["successChecks"],
        message: `only ${CHECK_CHANGING_REVISIONS.join(", ")} revisions may replace success checks, not ${input.type}`,
      });
    }
  },
);

/** `POST /goals/{goalId}/revisions`: the body (the OpenAPI document and the client use this one). */
export const RevisionRequestSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject(revisionFields()).check(checkRevisionFields),
);
export type RevisionRequest = z.input<typeof RevisionRequestSchema>;

/** A human revision as submitted (`POST /goals/{goalId}/revisions`, the `/goal` directive, Slack). */
export const RevisionInputSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .strictObject({
      ...revisionFields(),
      requestedBy: z.string().check(z.minLength(1, "must name who asks")),
    })
    .check(checkRevisionFields),
);
export type RevisionInput = z.input<typeof RevisionInputSchema>;

/**
 * Queues a human revision in the goal's inbox; it is applied at the next step boundary. Queueing the
 * same revision id again changes nothing (duplicate deliveries are idempotent).
 */
export function queueRevision(
  record: GoalRecord,
  input: RevisionInput,
  options: { revisionId: string; now: Date },
): GoalChange {
  assertStatus(record, OPEN_STATUSES, "queueRevision");
  const known = [...record.inbox, ...record.revisionLog].some(
    (item) => item.revisionId === options.revisionId,
  );
  if (known) return { record, events: [] };
  assertWithinJsonBounds(input, "revision", REVISION_BOUNDS);
  const parsed = parseOrThrow(RevisionInputSchema, input, "revision");
  if (parsed.target !== undefined) assertTargetable(record, parsed.target.fromStep);
  const queued: QueuedRevision = {
    ...parsed,
    revisionId: options.revisionId,
    requestedAt: options.now.toISOString(),
  };
  // Refuse now (a 400 to the human) what would make an invalid contract when applied.
  parseOrThrow(GoalSpecSchema, revisedSpec(record.spec, queued), "revised GoalSpec");
  const next: GoalRecord = { ...record, updatedAt: queued.requestedAt, inbox: [...record.inbox, queued] };
  const event = goalEvent(next, "revision.queued", options.now, {
    revisionId: queued.revisionId,
    revisionType: queued.type,
    content: queued.content,
    requestedBy: queued.requestedBy,
    replacesChecks: queued.successChecks !== undefined,
  });
  return settle(next, [event]);
}

/**
 * A saga can undo only steps that happened (a step counted, or the one logged after them), and at
 * most MAX_SAGA_STEPS of them: anything else is refused now, naming `target.fromStep`.
 */
function assertTargetable(record: GoalRecord, fromStep: number): void {
  const latest = record.steps + 1;
  const problem =
    fromStep > latest
      ? `step ${fromStep} has not happened: the goal has done ${record.steps} steps`
      : latest - fromStep + 1 > MAX_SAGA_STEPS
        ? `a saga undoes at most ${MAX_SAGA_STEPS} steps; the earliest it can start at is step ${latest - MAX_SAGA_STEPS + 1}`
        : undefined;
  if (problem !== undefined) {
    throw new ValidationError(`Invalid revision: target.fromStep: ${problem}`, [
      { path: "target.fromStep", message: problem },
    ]);
  }
}

/** The contract after the revision. Revision text is stored as data: nothing in it is interpreted. */
function revisedSpec(spec: GoalSpec, revision: QueuedRevision): GoalSpec {
  switch (revision.type) {
    case "add_constraint":
      return { ...spec, constraints: [...(spec.constraints ?? []), revision.content] };
    case "modify_objective":
    case "redirect":
    case "pivot":
      return {
        ...spec,
        objective: revision.content,
        successChecks: revision.successChecks ?? spec.successChecks,
      };
    case "refinement":
    case "inject_context":
    case "corrective":
      return spec;
  }
}

/** Checks that were dropped or whose verification changed: their old evidence proves nothing now. */
function changedCheckIds(before: readonly SuccessCheck[], after: readonly SuccessCheck[]): string[] {
  return before
    .filter((old) => {
      const now = after.find((check) => check.id === old.id);
      return !now || canonicalJson(now.verify) !== canonicalJson(old.verify);
    })
    .map((check) => check.id);
}

/**
 * Applies a queued human revision at a step boundary: the goal's revision goes up, the append-only
 * log records who, what, when and why, and the spec changes as the type says. This is the only
 * function that can change the success checks, and only with checks a human supplied. The optional
 * `reconcile` result (model output) can discard evidence, never add it.
 */
export function applyRevision(
  record: GoalRecord,
  revisionId: string,
  options: { now: Date; reconcile?: z.input<typeof ReconcileResultSchema> },
): GoalChange {
  assertStatus(record, OPEN_STATUSES, "applyRevision");
  const queued = record.inbox.find((item) => item.revisionId === revisionId);
  if (!queued) throw new RevisionNotFoundError(record.goalId, revisionId);
  const reconcile: ReconcileResult | undefined =
    options.reconcile === undefined
      ? undefined
      : parseOrThrow(ReconcileResultSchema, options.reconcile, "reconcile result");
  const at = options.now.toISOString();
  const revision = record.revision + 1;

  const spec = parseOrThrow(GoalSpecSchema, revisedSpec(record.spec, queued), "revised GoalSpec");
  // A new objective is a new contract: nothing gathered for the old one proves anything now.
  const newContract = CHECK_CHANGING_REVISIONS.includes(queued.type);
  const discarded = new Set([
    ...(newContract ? record.spec.successChecks.map((check) => check.id) : []),
    ...changedCheckIds(record.spec.successChecks, spec.successChecks),
    ...(reconcile?.discardEvidenceFor ?? []),
  ]);
  const keepsEvidence = (checkId: string) => !discarded.has(checkId);
  const entry: RevisionLogEntry = { ...queued, revision, appliedAt: at, ...(reconcile ? { reconcile } : {}) };
  // Without checks from a human, the checks reconcile proposed wait for a human to confirm them.
  const proposal: ContractProposal | undefined =
    newContract && queued.successChecks === undefined
      ? { revisionId, revision, checks: reconcile?.proposedChecks ?? [], outcome: "pending" }
      : undefined;
  const { contractProposal: _replaced, checkApproval: _asked, ...rest } = record;

  const next: GoalRecord = {
    ...rest,
    updatedAt: at,
    revision,
    spec,
    inbox: record.inbox.filter((item) => item.revisionId !== revisionId),
    revisionLog: [...record.revisionLog, entry],
    evidence: record.evidence.filter((item) => keepsEvidence(item.checkId)),
    lastCycle: record.lastCycle
      ? { ...record.lastCycle, satisfiedChecks: record.lastCycle.satisfiedChecks.filter(keepsEvidence) }
      : record.lastCycle,
    partialChecks: (record.partialChecks ?? []).filter(keepsEvidence),
    // Injected context is information only; a refinement narrows the current work (its own list).
    contextNotes:
      queued.type === "inject_context"
        ? [...(record.contextNotes ?? []), queued.content]
        : record.contextNotes,
    pendingCorrections:
      queued.type === "corrective"
        ? [
            ...(record.pendingCorrections ?? []),
            {
              revisionId,
              revision,
              content: queued.content,
              ...(queued.target === undefined ? {} : { fromStep: queued.target.fromStep }),
              requestedAt: queued.requestedAt,
            },
          ]
        : record.pendingCorrections,
    // A sign-off asked under the old contract is void; a proposal a newer revision replaced too.
    ...(proposal ? { contractProposal: proposal } : {}),
    ...(record.checkApproval && !newContract ? { checkApproval: record.checkApproval } : {}),
    ...(record.contractProposal && !newContract ? { contractProposal: record.contractProposal } : {}),
  };

  const events: NewGoalEvent[] = [
    goalEvent(next, "revision.applied", options.now, {
      revisionId,
      revisionType: queued.type,
      revision,
      requestedBy: queued.requestedBy,
      reason: queued.reason ?? null,
      content: queued.content,
      checksReplaced: queued.successChecks !== undefined,
      contract: !newContract ? "unchanged" : proposal ? "awaiting_confirmation" : "replaced",
      ...(proposal ? { proposedChecks: proposal.checks.map((check) => check.id) } : {}),
      evidenceDiscarded: [...discarded].filter((checkId) =>
        record.evidence.some((item) => item.checkId === checkId),
      ),
      reconcile: reconcile ?? null,
    }),
  ];
  if (queued.type === "corrective") {
    events.push(
      goalEvent(next, "compensation.requested", options.now, {
        revisionId,
        revision,
        content: queued.content,
        fromStep: queued.target?.fromStep ?? null,
      }),
    );
  }
  return settle(next, events);
}

/**
 * When the contract now in force took effect: the latest revision that changed what the goal is for
 * (or confirmed its checks). A step logged before it proves nothing for the current checks.
 */
export function contractSince(record: Pick<GoalRecord, "revisionLog">): string | undefined {
  return [...record.revisionLog].reverse().find((entry) => CHECK_CHANGING_REVISIONS.includes(entry.type))
    ?.appliedAt;
}

/** The compensation a `corrective` revision asked for has run; the correction is no longer pending. */
export function resolveCorrection(record: GoalRecord, revisionId: string, now: Date): GoalChange {
  assertStatus(record, OPEN_STATUSES, "resolveCorrection");
  const pending = record.pendingCorrections ?? [];
  if (!pending.some((item) => item.revisionId === revisionId)) {
    throw new ValidationError(`Goal '${record.goalId}' has no pending correction '${revisionId}'`, [
      { path: "revisionId", message: "no pending correction with this id" },
    ]);
  }
  const next: GoalRecord = {
    ...record,
    updatedAt: now.toISOString(),
    pendingCorrections: pending.filter((item) => item.revisionId !== revisionId),
  };
  return settle(next, [goalEvent(next, "compensation.completed", now, { revisionId })]);
}

/**
 * A human confirmed the checks reconcile proposed for a contract-changing revision (DESIGN §5): they
 * become the goal's success checks under a new revision, logged as that human's revision. With
 * `applyRevision`, the only way success checks change, and both only on a human's word.
 */
export function confirmContract(
  record: GoalRecord,
  answer: { approvalId: string; decidedBy: string; comment?: string },
  now: Date,
): GoalChange {
  assertStatus(record, OPEN_STATUSES, "confirmContract");
  const proposal = record.contractProposal;
  if (
    proposal?.outcome !== "pending" ||
    proposal.approvalId !== answer.approvalId ||
    proposal.checks.length === 0
  )
    return settle(record, []);
  const at = now.toISOString();
  const revision = record.revision + 1;
  const spec = parseOrThrow(
    GoalSpecSchema,
    { ...record.spec, successChecks: proposal.checks },
    "confirmed GoalSpec",
  );
  const entry: RevisionLogEntry = {
    revisionId: `${proposal.revisionId}-confirmed`,
    type: record.revisionLog.find((item) => item.revisionId === proposal.revisionId)?.type ?? "redirect",
    content: `confirmed the success checks proposed for revision ${proposal.revision}: ${proposal.checks.map((check) => check.id).join(", ")}`,
    successChecks: proposal.checks,
    requestedBy: answer.decidedBy,
    ...(answer.comment === undefined ? {} : { reason: answer.comment.slice(0, 2000) }),
    requestedAt: at,
    revision,
    appliedAt: at,
  };
  const { contractProposal: _confirmed, ...rest } = record;
  const next: GoalRecord = {
    ...rest,
    updatedAt: at,
    revision,
    spec,
    revisionLog: [...record.revisionLog, entry],
    evidence: [],
    partialChecks: [],
    lastCycle: record.lastCycle ? { ...record.lastCycle, satisfiedChecks: [] } : record.lastCycle,
  };
  return settle(next, [
    goalEvent(next, "contract.confirmed", now, {
      revision,
      confirmedBy: answer.decidedBy,
      approvalId: answer.approvalId,
      successChecks: proposal.checks.map((check) => check.id),
    }),
  ]);
}

/** A human rejected the proposed checks: recorded; the goal waits for a revision that supplies checks. */
export function rejectContract(
  record: GoalRecord,
  answer: { approvalId: string; decidedBy: string; comment?: string },
  now: Date,
): GoalChange {
  const proposal = record.contractProposal;
  if (proposal?.outcome !== "pending" || proposal.approvalId !== answer.approvalId) return settle(record, []);
  const rejected: ContractProposal = {
    ...proposal,
    outcome: "rejected",
    decidedBy: answer.decidedBy,
    ...(answer.comment === undefined ? {} : { comment: answer.comment.slice(0, 2000) }),
  };
  const next: GoalRecord = { ...record, contractProposal: rejected, updatedAt: now.toISOString() };
  return settle(next, [
    goalEvent(next, "contract.rejected", now, {
      revision: proposal.revision,
      rejectedBy: answer.decidedBy,
      comment: answer.comment ?? null,
    }),
  ]);
}
