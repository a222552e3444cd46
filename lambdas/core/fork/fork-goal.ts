import { canonicalJson, sha256Hex } from "../goal/canonical-json";
import { FIRST_TASK, runsOnFields } from "../goal/create-goal";
import { GoalLoopsError, ValidationError } from "../goal/errors";
import type { ForkDecision, ForkState } from "../goal/fork";
import { forkRunId } from "../goal/fork";
import { type GoalChange, goalEvent, settle } from "../goal/goal-change";
import type { NewGoalEvent } from "../goal/goal-event";
import type { GoalRecord } from "../goal/goal-record";
import { type GoalSpec, parseGoalSpec } from "../goal/goal-spec";
import { RECORD_SCHEMA } from "../goal/record-schema";
import { queueRevision } from "../goal/revisions";
import type { VersionTarget } from "../goal/runs-on";
import type { Approval } from "../ports/goal-store";
import type { ForkPoint } from "./fork-point";
import type { ForkRequest } from "./fork-request";

/** What the fork request hashes to: a repeated Idempotency-Key must come with the same request. */
export function forkRequestSha256(sourceGoalId: string, request: ForkRequest): string {
  return sha256Hex(canonicalJson({ sourceGoalId, request }));
}

export interface ForkInput {
  /** The goal the fork was asked of (`POST /goals/{goalId}/fork`): the fork's `forkedFrom`. */
  readonly source: GoalRecord;
  /** Where it starts: the state after `request.atStep` (see `forkPointOf`). */
  readonly point: ForkPoint;
  readonly request: ForkRequest;
  /** The source's approvals `request.decisions` names, read and checked by `checkedDecisions`. */
  readonly decisions: readonly ForkDecision[];
  readonly goalId: string;
  /** Who asked, for the revision log and the decisions. */
  readonly caller: string;
  /** The id the revision is queued under, when the request has one. */
  readonly revisionId: string;
  readonly now: Date;
  /** The deployed version the fork runs on (the live one), whatever version the source ran on. */
  readonly target?: VersionTarget;
}

/**
 * The live version reads an older record schema than this code writes the fork's copies in (a
 * rollback across a schema change): its steps could not read them, so no fork is made until a
 * version that reads them is live again.
 */
export class ForkTargetTooOldError extends GoalLoopsError {
  override readonly name = "ForkTargetTooOld";
}

/** Refuses a fork the live version could not run (see ForkTargetTooOldError). */
export function assertForkableOn(target: VersionTarget | undefined): void {
  if (target === undefined || target.schema >= RECORD_SCHEMA) return;
  throw new ForkTargetTooOldError(
    `The live version ${target.version} reads record schema ${target.schema}; a fork copies the source's history in schema ${RECORD_SCHEMA}, which it could not read. Fork once a version that reads it is live again (goal-loops versions).`,
  );
}

/**
 * The fork's first record and events: the source's record as it stood after `atStep` (its contract,
 * evidence, progress, plan, attempts and lessons, revision log, usage), as a new goal of the same
 * tenant running its first run. Everything that belonged to the source's runs is left behind (its
 * loop marker, gate, waits, pause, queued revisions); the request's models and limits replace the
 * source's, and its revision is queued, to be applied at the fork's first step boundary like any
 * revision (with its `reconcile` call). The usage up to `atStep` stays in `usage`, so limits and
 * budgets go on from where the source stood, and is kept as `fork.inherited`: shown apart, never
 * billed to the fork.
 */
export function forkRecord(input: ForkInput): GoalChange {
  const { source, point, request, now } = input;
  const base = point.state.record;
  const at = now.toISOString();
  const generation = (base.fork?.generation ?? 0) + 1;
  const forkedFrom = { goalId: source.goalId, step: request.atStep };
  const spec = forkSpec(base.spec, request, forkedFrom);
  const fork: ForkState = {
    generation,
    requestSha256: forkRequestSha256(source.goalId, request),
    inherited: { usage: base.usage, usageByRole: base.usageByRole },
    decisions: [...input.decisions],
  };
  const {
    loop: _loop,
    takeover: _takeover,
    previousRunId: _previousRunId,
    redriving: _redriving,
    pauseRequest: _pauseRequest,
    costShortfall: _costShortfall,
    subgoalWait: _subgoalWait,
    depth: _depth,
    // The fork runs on its own version, and is stored in that version's schema.
    schema: _schema,
    runsOn: _runsOn,
    ...kept
  } = base;
  const record: GoalRecord = {
    ...kept,
    ...runsOnFields(input.target),
    goalId: input.goalId,
    tenantId: source.tenantId,
    status: "running",
    spec,
    runId: forkRunId(generation),
    runIteration: 0,
    activeTask: FIRST_TASK,
    waitingFor: null,
    resumeCondition: null,
    stopReason: null,
    actionGate: null,
    inbox: [],
    fork,
    lastEventSeq: 0,
    createdAt: at,
    updatedAt: at,
  };
  const events: NewGoalEvent[] = [
    goalEvent(record, "goal.created", now, {
      tenantId: record.tenantId,
      revision: record.revision,
      objective: spec.objective,
      requestedPattern: spec.pattern,
      pattern: record.pattern,
      patternReason: record.patternReason,
      successChecks: spec.successChecks.map((check) => check.id),
      forkedFrom,
      version: input.target?.version ?? null,
    }),
    goalEvent(record, "goal.forked", now, {
      forkedFrom,
      ...(point.owner.goalId === source.goalId ? {} : { stepOf: point.owner.goalId }),
      steps: record.steps,
      inheritedUsage: { ...fork.inherited.usage },
      calls: { ...point.state.calls },
      ...(request.models === undefined ? {} : { models: { ...request.models } }),
      ...(request.limits === undefined ? {} : { limits: { ...request.limits } }),
      decisions: input.decisions.map(({ sourceApprovalId, decision }) => ({ sourceApprovalId, decision })),
      by: input.caller,
    }),
  ];
  const created = settle(record, events);
  const revision = request.revision;
  if (revision === undefined) return created;
  const queued = withFieldPrefix("revision", () =>
    queueRevision(
      created.record,
      { ...revision, requestedBy: input.caller },
      { revisionId: input.revisionId, now },
    ),
  );
  return { record: queued.record, events: [...created.events, ...queued.events] };
}

/** The source's contract as of the step, with the request's models and limits and the fork's origin. */
function forkSpec(spec: GoalSpec, request: ForkRequest, forkedFrom: GoalSpec["forkedFrom"]): GoalSpec {
  const { parentGoalId: _parent, ...own } = spec;
  const models = request.models === undefined ? spec.models : { ...spec.models, ...request.models };
  const limits = request.limits === undefined ? spec.limits : { ...spec.limits, ...request.limits };
  // The request's `models` and `limits` are the spec's own fields: an error names them as the request does.
  return parseGoalSpec({ ...own, limits, ...(models === undefined ? {} : { models }), forkedFrom });
}

/**
 * The request's `decisions`, each checked against the source's approval it names: one of the
 * source's (or, for a shared step, of the goal that made it), decided, and asked after the step's
 * state was recorded (an approval asked earlier is part of what the fork inherits).
 */
export function checkedDecisions(input: {
  readonly request: ForkRequest;
  readonly point: ForkPoint;
  readonly source: GoalRecord;
  readonly approvals: ReadonlyMap<string, Approval>;
  readonly caller: string;
}): ForkDecision[] {
  const { request, point, source, approvals } = input;
  const goals = new Set([source.goalId, point.owner.goalId]);
  return (request.decisions ?? []).map((wanted, index) => {
    const path = `decisions.${index}.approvalId`;
    const approval = approvals.get(wanted.approvalId);
    if (approval === undefined || !goals.has(approval.goalId) || approval.tenantId !== source.tenantId) {
      throw invalid(path, `approval ${wanted.approvalId} is not one of goal ${source.goalId}'s`);
    }
    if (approval.status === "pending" || approval.status === "superseded") {
      throw invalid(path, `approval ${wanted.approvalId} is ${approval.status}, not decided`);
    }
    if (Date.parse(approval.requestedAt) < Date.parse(point.state.at)) {
      throw invalid(
        path,
        `approval ${wanted.approvalId} was asked before step ${request.atStep} was counted: the fork inherits it as it was decided`,
      );
    }
    return {
      sourceApprovalId: approval.approvalId,
      kind: approval.action.kind,
      fingerprint: approval.action.fingerprint,
      decision: wanted.decision,
      ...(wanted.comment === undefined ? {} : { comment: wanted.comment }),
      decidedBy: input.caller,
    };
  });
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`Invalid fork request: ${path}: ${message}`, [{ path, message }]);
}

/** Runs `make`, naming every field a ValidationError names as a field of `prefix` in the request. */
function withFieldPrefix<T>(prefix: string, make: () => T): T {
  try {
    return make();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const issues = error.issues.map((issue) => ({
      path: issue.path === "" ? prefix : `${prefix}.${issue.path}`,
      message: issue.message,
    }));
    throw new ValidationError(`Invalid fork request: ${error.message}`, issues, { cause: error });
  }
}
