import { ModelRoleSchema } from "../models/model-roles";
import * as z from "../zod";
import { EvidenceSchema } from "./evidence/evidence";
import { ForkedFromSchema, ForkStateSchema } from "./fork";
import { FrozenToolSchema } from "./frozen-tool";
import { CapacityWaitActivitySchema, GoalActivitySchema } from "./goal-activity";
import { GoalSpecSchema, LimitsSchema, PatternSchema, SuccessCheckSchema } from "./goal-spec";
import { LessonSchema } from "./lesson";
import { PlanStateSchema, StepDecisionSchema } from "./plan";
import { REVISION_TYPES } from "./revision-types";
import { RunsOnSchema } from "./runs-on";
import { SagaSchema } from "./saga";
import { SubgoalEntrySchema, SubgoalWaitSchema } from "./subgoals";
import { UsageSchema } from "./usage";

export const GOAL_STATUSES = [
  "running",
  "waiting",
  "paused",
  "completed",
  "cancelled",
  "terminated",
  "failed",
] as const;
export const GoalStatusSchema = /* @__PURE__ */ z.lazySchema(() => z.enum(GOAL_STATUSES));
export type GoalStatus = z.infer<typeof GoalStatusSchema>;

/** Statuses no event can leave. `failed` is not final: an infrastructure failure is redrivable. */
export const FINAL_STATUSES: ReadonlySet<GoalStatus> = new Set(["completed", "cancelled", "terminated"]);

/** What a waiting goal waits for. Only an event matching both `waitingFor` and `resumeCondition` wakes it. */
export const WaitingForSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    /**
     * A human's `approval` or `decision`, the end of the `subgoal`s its turn started, or its tenant's
     * turn under a concurrency limit (`capacity`: the goal has not started its first run yet).
     */
    kind: z.enum(["approval", "decision", "subgoal", "capacity"]),
    /** The approval id (random, never the task token); a sub-goal wait's id for `subgoal`; `capacity:{tenantId}`. */
    approvalId: z.string(),
    /** Why it waits, shown to humans ("irreversible tool notify", "limit maxSteps reached"). */
    reason: z.string(),
    /** The sub-goals a `subgoal` wait waits on. */
    goalIds: z.optional(z.array(z.string())),
  }),
);
export type WaitingFor = z.infer<typeof WaitingForSchema>;

export const ResumeConditionSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    /** The event detail-type that can wake the goal, e.g. `Approval Decided`. */
    eventType: z.string(),
    approvalId: z.string(),
    /** The goal revision the pending action was approved against; a revised goal re-asks. */
    revision: z.number().check(z.int(), z.gte(1)),
  }),
);
export type ResumeCondition = z.infer<typeof ResumeConditionSchema>;

export { EMPTY_USAGE, type Usage, UsageSchema } from "./usage";

/** What a role's latest call reasoned, as the model summarized it (`model.usage` events carry every call's). */
export const LatestReasoningSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    summary: z.string(),
    modelId: z.string(),
    at: z.iso.datetime(),
  }),
);
export type LatestReasoning = z.infer<typeof LatestReasoningSchema>;

/** Why the system stopped or will stop a goal: a limit, no progress, a fatal error, a human. */
export const StopReasonSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    kind: z.enum([
      "limit",
      "no_progress",
      "fatal_error",
      "infrastructure",
      "cancelled",
      "policy",
      "completed",
      "human",
    ]),
    /** The limit's name (`maxSteps`) or the error's name (`AccessDeniedException`). */
    detail: z.string(),
    message: z.string(),
    /** The model role involved, when a model call failed. */
    role: z.optional(ModelRoleSchema),
    at: z.iso.datetime(),
  }),
);
export type StopReason = z.infer<typeof StopReasonSchema>;

/**
 * A human asked to pause the goal (`POST /goals/{goalId}/pause`). The loop pauses it at its next
 * step boundary (the pattern's verify step), never in the middle of a model or tool call; a goal
 * that waits keeps waiting and pauses once its wait is over. A resume before then withdraws it.
 */
export const PauseRequestSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    by: z.string().check(z.minLength(1)),
    reason: z.optional(z.string().check(z.maxLength(2000))),
    /** The door it came through (`api`, `cli` …), for the audit trail. */
    channel: z.string().check(z.minLength(1)),
    at: z.iso.datetime(),
  }),
);
export type PauseRequest = z.infer<typeof PauseRequestSchema>;

export { REVISION_TYPES };
export const RevisionTypeSchema = /* @__PURE__ */ z.lazySchema(() => z.enum(REVISION_TYPES));
export type RevisionType = z.infer<typeof RevisionTypeSchema>;

/**
 * What a `corrective` revision undoes: step `fromStep` and every later one, newest first (a saga).
 * Submitted as `{fromStep: N}`, or `{step: N}` as DESIGN first named it; stored as `fromStep`.
 */
export const CorrectionTargetSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.pipe(
    z.union([
      z.strictObject({ fromStep: z.number().check(z.int(), z.gte(1)) }),
      z.strictObject({ step: z.number().check(z.int(), z.gte(1)) }),
    ]),
    z.transform((target) => ({ fromStep: "fromStep" in target ? target.fromStep : target.step })),
  ),
);
export type CorrectionTarget = z.output<typeof CorrectionTargetSchema>;

/** A human revision as queued in the goal's inbox, before it is applied at a step boundary. */
export const QueuedRevisionSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    revisionId: z.string(),
    type: RevisionTypeSchema,
    /** Data, never instructions: revision text cannot change success checks or grant tools. */
    content: z.string().check(z.minLength(1), z.maxLength(8000)),
    /** New success checks, only from a human and only for modify_objective / pivot / redirect. */
    successChecks: z.optional(GoalSpecSchema.shape.successChecks),
    requestedBy: z.string(),
    reason: z.optional(z.string().check(z.maxLength(2000))),
    /** A `corrective` revision's target: the first step its saga undoes. */
    target: z.optional(z.object({ fromStep: z.number().check(z.int(), z.gte(1)) })),
    requestedAt: z.iso.datetime(),
  }),
);
export type QueuedRevision = z.infer<typeof QueuedRevisionSchema>;

/**
 * What the `reconcile` model call decided about finished work when a revision was applied. It is model
 * output: it can only discard evidence (never add it) and cannot touch the success checks.
 */
export const ReconcileResultSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    summary: z._default(z.string().check(z.maxLength(4000)), ""),
    /** Finished work that stays valid under the revised goal. */
    keep: z._default(z.array(z.string().check(z.maxLength(1000))).check(z.maxLength(100)), []),
    /** Finished work that no longer counts. */
    discard: z._default(z.array(z.string().check(z.maxLength(1000))).check(z.maxLength(100)), []),
    /** New work the revision asks for. */
    add: z._default(z.array(z.string().check(z.maxLength(1000))).check(z.maxLength(100)), []),
    /** Success checks whose evidence no longer holds under the revised goal. */
    discardEvidenceFor: z._default(z.array(z.string()).check(z.maxLength(20)), []),
    /** Whether the work so far must start over (recorded; a planning loop replans from scratch). */
    restart: z._default(z.boolean(), false),
    /**
     * The success checks the model proposes for a revision that changes what the goal is for and
     * carried none: they count only once a human confirms them (ContractProposalSchema).
     */
    proposedChecks: z.optional(z.array(SuccessCheckSchema).check(z.maxLength(20))),
  }),
);
export type ReconcileResult = z.infer<typeof ReconcileResultSchema>;

/**
 * A contract-changing revision (`redirect`, `pivot`, `modify_objective`) that carried no success
 * checks: the checks reconcile proposed wait for a human to confirm them (DESIGN §5). Until then the
 * goal does no work toward the old contract. No checks proposed, or a human rejected them: the goal
 * stays paused until a revision supplies checks.
 */
export const ContractProposalSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    revisionId: z.string(),
    /** The revision that changed the objective. */
    revision: z.number().check(z.int(), z.gte(2)),
    checks: z.array(SuccessCheckSchema).check(z.maxLength(20)),
    outcome: z.enum(["pending", "rejected"]),
    approvalId: z.optional(z.string()),
    decidedBy: z.optional(z.string()),
    comment: z.optional(z.string().check(z.maxLength(2000))),
  }),
);
export type ContractProposal = z.infer<typeof ContractProposalSchema>;

/** An applied revision in the append-only log: who, what, when, why, and the revision it made. */
export const RevisionLogEntrySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.extend(QueuedRevisionSchema, {
    revision: z.number().check(z.int(), z.gte(2)),
    appliedAt: z.iso.datetime(),
    reconcile: z.optional(ReconcileResultSchema),
  }),
);
export type RevisionLogEntry = z.infer<typeof RevisionLogEntrySchema>;

/** A `corrective` revision: finished work must be compensated (undone or fixed) before going on. */
export const PendingCorrectionSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    revisionId: z.string(),
    revision: z.number().check(z.int(), z.gte(2)),
    content: z.string(),
    /** The first step to undo, with every later one (a saga); absent: the last reversible call only. */
    fromStep: z.optional(z.number().check(z.int(), z.gte(1))),
    requestedAt: z.iso.datetime(),
  }),
);
export type PendingCorrection = z.infer<typeof PendingCorrectionSchema>;

export const LastCycleSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    runId: z.string(),
    iteration: z.number().check(z.int(), z.gte(0)),
    /** Whether the cycle changed the evidence set (invariant 4: then `noProgressCycles` is 0). */
    progress: z.boolean(),
    /** Check ids satisfied when the cycle ended; the next cycle's "newly satisfied" is relative to it. */
    satisfiedChecks: z.array(z.string()),
    /** The step's turn ended without tool calls: the model said it is done (a claim, not evidence). */
    claimedDone: z.optional(z.boolean()),
    at: z.iso.datetime(),
  }),
);
export type LastCycle = z.infer<typeof LastCycleSchema>;

/**
 * The phases of one loop iteration whose work a retried step must not repeat. `verified` (observe /
 * evaluate counted the last step), `planned` and `reflected` belong to plan_execute and reflexion;
 * `reasoned` means the acting turn (reason, execute or attempt) is checkpointed and counted.
 */
export const LOOP_PHASES = ["started", "verified", "planned", "reflected", "reasoned", "acted"] as const;

/**
 * Where the loop is inside its run: `started` once the run's first step loaded the goal, then
 * `reasoned` and `acted` per iteration. A retried step that finds its own phase (or a later one) for
 * the same run and iteration already did its work (usage counted, events appended) and only answers.
 */
export const LoopMarkerSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    runId: z.string(),
    iteration: z.number().check(z.int(), z.gte(0)),
    phase: z.enum(LOOP_PHASES),
  }),
);
export type LoopMarker = z.infer<typeof LoopMarkerSchema>;

/**
 * The iteration a run took over from the run before it, when that run could not finish it (its
 * process died and the goal was re-attached, or it failed and a human retried the goal). What the
 * lineage did in the iteration counts for the new run (`phase`: how far it got), and the new run goes
 * on in the old run's lineage (run-lineage.ts), so no model call is paid for twice.
 */
export const TakeoverSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    /**
     * The lineage the run goes on in: its first run's id, handed on by every take-over. Checkpoints,
     * gates, the plan step in progress and logged steps are recorded under it.
     */
    runId: z.string(),
    iteration: z.number().check(z.int(), z.gte(0)),
    /** How far the old run got in the iteration; absent when it had not started it. */
    phase: z.optional(z.enum(LOOP_PHASES)),
  }),
);
export type Takeover = z.infer<typeof TakeoverSchema>;

/**
 * A tool call that failed in a way no retry fixes (access denied, forbidden, a request the service
 * refuses, a policy), waiting for a human in react and reflexion (plan_execute keeps its own on the
 * plan step): approve goes on without it (the model sees the error), reject terminates the goal.
 */
/**
 * An `approval` success check put to a human (through the approval doors, bound to the check):
 * approved, it becomes the check's evidence; rejected, the human's comment goes to the model and the
 * check is asked again once new work was counted (`steps` past `atStep`).
 */
export const CheckApprovalSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    checkId: z.string(),
    outcome: z.enum(["pending", "approved", "rejected"]),
    /** The goal's `steps` when it was asked. */
    atStep: z.number().check(z.int(), z.gte(0)),
    approvalId: z.optional(z.string()),
    decidedBy: z.optional(z.string()),
    comment: z.optional(z.string().check(z.maxLength(2000))),
  }),
);
export type CheckApproval = z.infer<typeof CheckApprovalSchema>;

export const ToolDecisionSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.extend(StepDecisionSchema, { tool: z.string() }),
);
export type ToolDecision = z.infer<typeof ToolDecisionSchema>;

/**
 * A human gate on the tool calls of one reason turn (run, iteration): the calls that need approval,
 * the approval that asks for it, and the outcome Act obeys. Act runs `approved` gated calls exactly
 * once and answers `rejected` / `expired` ones with a tool error, never running them.
 */
/**
 * One call a gate holds, as a human approves it: the tool and its exact input, and for an MCP tool
 * the server, its own tool name and the definition hash the approval binds to.
 */
export const GatedCallSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    name: z.string(),
    input: z.json(),
    server: z.optional(z.string()),
    tool: z.optional(z.string()),
    definitionHash: z.optional(z.string()),
  }),
);
export type GatedCall = z.infer<typeof GatedCallSchema>;

export const ActionGateSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    /** With `iteration`, the gated turn's position: its run's lineage (run-lineage.ts). */
    runId: z.string(),
    iteration: z.number().check(z.int(), z.gte(0)),
    /** toolUseIds of the gated calls in the turn. */
    toolUseIds: z.array(z.string()).check(z.minLength(1)),
    /** Tool names and canonical input hash of the gated calls: what the approval binds to. */
    fingerprint: z.string(),
    /** One line a human reads ("notify #ops: Release 1.2 is out"). */
    summary: z.string().check(z.maxLength(2000)),
    /** The gated calls in full (gates recorded before they were kept have only the summary). */
    calls: z.optional(z.array(GatedCallSchema).check(z.maxLength(50))),
    approvalId: z.optional(z.string()),
    outcome: z.enum(["pending", "approved", "rejected", "expired"]),
    decidedBy: z.optional(z.string()),
    comment: z.optional(z.string().check(z.maxLength(2000))),
  }),
);
export type ActionGate = z.infer<typeof ActionGateSchema>;

/**
 * Everything the system knows about one goal, as stored in the goal store. The spec inside is the
 * current contract (after applied revisions); only `applyRevision` in the core changes it.
 */
export const GoalRecordSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    goalId: z.string(),
    tenantId: z.string(),
    status: GoalStatusSchema,
    /** Starts at 1; each applied human revision adds one. */
    revision: z.number().check(z.int(), z.gte(1)),
    pattern: PatternSchema,
    /** Why the pattern was chosen (the selector's rule, or "requested"). */
    patternReason: z.string(),
    spec: GoalSpecSchema,
    /**
     * The MCP tools the goal was granted, as their servers listed them when it started: what the model
     * is offered and what an approval binds to, for the goal's whole life (revisions grant no tools).
     */
    frozenTools: z.optional(z.array(FrozenToolSchema)),
    runId: z.string(),
    /** The run this one continued from (resume or continue-as-new); the checkpoint is the goal itself. */
    previousRunId: z.optional(z.string()),
    /** Iterations inside the current run; continue-as-new resets it. */
    runIteration: z.number().check(z.int(), z.gte(0)),
    /** Set while running: the step the goal is in (`reason`, `act`, `verify` …). */
    activeTask: z.nullable(z.string()),
    /** Set while the running goal waits for model capacity (see CapacityWaitActivitySchema). */
    activity: z.optional(CapacityWaitActivitySchema),
    waitingFor: z.nullable(WaitingForSchema),
    resumeCondition: z.nullable(ResumeConditionSchema),
    steps: z.number().check(z.int(), z.gte(0)),
    noProgressCycles: z.number().check(z.int(), z.gte(0)),
    /** Evidence that currently satisfies a success check, one entry per satisfied check. */
    evidence: z.array(EvidenceSchema),
    /**
     * Legacy: fingerprints of everything seen, as records kept them before the goal store held one
     * item per fingerprint (`GoalStore.seenBefore`). Still read (they count as seen), never grown.
     */
    seenFingerprints: z.optional(z.array(z.string())),
    /** The latest progress notes, newest last; the prompt shows the last three. */
    progressNotes: z.array(z.string()),
    usage: UsageSchema,
    /**
     * Cost and tokens per model role, for tiering decisions and reports: only roles that made calls
     * (records written before this kept a zero entry for every role, still valid).
     */
    usageByRole: z.partialRecord(ModelRoleSchema, UsageSchema),
    /** Each role's latest call that returned reasoning text: its summary, bounded (never a signature). */
    reasoningByRole: z.optional(z.partialRecord(ModelRoleSchema, LatestReasoningSchema)),
    stopReason: z.nullable(StopReasonSchema),
    /** A human's pause the loop has not reached a step boundary to apply yet; see PauseRequestSchema. */
    pauseRequest: z.optional(PauseRequestSchema),
    inbox: z.array(QueuedRevisionSchema),
    revisionLog: z.array(RevisionLogEntrySchema),
    /** Human context from `refinement` and `inject_context` revisions, oldest first (shown in prompts). */
    contextNotes: z.optional(z.array(z.string())),
    /** `corrective` revisions whose compensation has not run yet. */
    pendingCorrections: z.optional(z.array(PendingCorrectionSchema)),
    /** The last verify cycle: whether it made progress and which checks were satisfied after it. */
    lastCycle: z.optional(z.nullable(LastCycleSchema)),
    /** Tools whose latest call failed, oldest first: one that succeeds again clears a blocker (progress). */
    openBlockers: z.optional(z.array(z.string())),
    /** Unsatisfied checks that new evidence moved toward (a file they name, a result of their tool). */
    partialChecks: z.optional(z.array(z.string())),
    /** Replans requested so far (plan_execute); the limit is reached when it exceeds `maxReplans`. */
    replans: z.optional(z.number().check(z.int(), z.gte(0))),
    /** The plan_execute loop's plan, step statuses, pending replan and replan history. */
    planState: z.optional(PlanStateSchema),
    /** Attempts started so far (reflexion); the limit is reached when it equals `maxAttempts`. */
    attempts: z.optional(z.number().check(z.int(), z.gte(0))),
    /** Lessons the reflexion loop drew from failed attempts, oldest first; every attempt prompt shows them. */
    lessons: z.optional(z.array(LessonSchema)),
    /** The approval gate of the current reason turn's tool calls, if it needed one. */
    actionGate: z.optional(z.nullable(ActionGateSchema)),
    /** The loop's progress in the current run (see LoopMarkerSchema); absent before the first run loads. */
    loop: z.optional(LoopMarkerSchema),
    /** The iteration this run took over from the previous one (re-attach, retry); see TakeoverSchema. */
    takeover: z.optional(TakeoverSchema),
    /**
     * The failed run a retry is redriving (Step Functions `RedriveExecution`): its RecordFailure, run
     * again by the redrive, hands the run back to the loop instead of failing it, once.
     */
    redriving: z.optional(z.string()),
    /**
     * A model call the rest of `maxCostUsd` could not pay for at its worst case, so it was not made:
     * until a call is made again, `checkLimits` counts it (the goal waits for a limit decision).
     */
    costShortfall: z.optional(
      z.object({ role: ModelRoleSchema, neededUsd: z.number().check(z.nonnegative()), at: z.iso.datetime() }),
    ),
    /** The last unrecoverable tool failure a human was asked about (react, reflexion); see ToolDecisionSchema. */
    toolDecision: z.optional(ToolDecisionSchema),
    /** The last `approval` success check put to a human; see CheckApprovalSchema. */
    checkApproval: z.optional(CheckApprovalSchema),
    /** A new contract waiting for a human to confirm it; see ContractProposalSchema. */
    contractProposal: z.optional(ContractProposalSchema),
    /**
     * The goal holds one of its tenant's concurrent-goal slots (tenants.limits concurrentGoals) until it
     * ends: its end is announced (`Goal Ended`) so the slot goes to the tenant's next waiting goal.
     */
    concurrencySlot: z.optional(z.boolean()),
    /** How many parents are above this goal: 0 (or absent) for a goal a user posted, 1 for its sub-goals … */
    depth: z.optional(z.number().check(z.int(), z.gte(0))),
    /** The goal's `spawn_subgoal` calls: the children they started, or why they were refused. */
    subgoals: z.optional(z.array(SubgoalEntrySchema)),
    /** The task token the goal waits on while its children run (never shown anywhere). */
    subgoalWait: z.optional(SubgoalWaitSchema),
    /** The latest compensation saga (a corrective revision's with a target, or an abandoned plan's). */
    saga: z.optional(SagaSchema),
    /** Steps earlier sagas undid: a later saga leaves them alone. */
    compensatedSteps: z.optional(
      z
        .array(
          z.object({
            fromStep: z.number().check(z.int(), z.gte(1)),
            toStep: z.number().check(z.int(), z.gte(0)),
          }),
        )
        .check(z.maxLength(50)),
    ),
    /**
     * A fork's own bookkeeping (its origin is `spec.forkedFrom`): the usage it inherited from its
     * source, the decisions its request gave in advance, its generation; see ForkStateSchema.
     */
    fork: z.optional(ForkStateSchema),
    /**
     * The record schema its goal is stored in (record-schema.ts): the one its version reads. Every
     * writer keeps it, so a newer function (the API, the resume handler) writes an older goal's record
     * in the shape that goal's own steps read. Absent: this code's RECORD_SCHEMA.
     */
    schema: z.optional(z.number().check(z.int(), z.gte(1))),
    /** The deployed version the goal runs on; absent for a goal created before versions existed. */
    runsOn: z.optional(RunsOnSchema),
    /** Sequence number of the last event appended for this goal (0 before any). */
    lastEventSeq: z.number().check(z.int(), z.gte(0)),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  }),
);
export type GoalRecord = z.infer<typeof GoalRecordSchema>;

/** The public snapshot (`GET /goals/{goalId}`), derived from a record. Field names are a contract. */
export const GoalSnapshotSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    goalId: z.string(),
    status: GoalStatusSchema,
    revision: z.number().check(z.int()),
    pattern: PatternSchema,
    patternReason: z.string(),
    objective: z.string(),
    activeTask: z.nullable(z.string()),
    /** While running: the step it is in, or the model capacity it waits for (DESIGN §4). */
    activity: z.optional(GoalActivitySchema),
    runId: z.string(),
    lastEventId: z.number().check(z.int()),
    noProgressCycles: z.number().check(z.int()),
    waitingFor: z.nullable(WaitingForSchema),
    resumeCondition: z.nullable(ResumeConditionSchema),
    satisfiedChecks: z.array(z.string()),
    unsatisfiedChecks: z.array(z.string()),
    lastEvidence: z.nullable(EvidenceSchema),
    steps: z.number().check(z.int()),
    /**
     * What the goal was billed for. A fork's `inherited` is its source's usage up to the fork point:
     * shown apart, counted in no total here, never billed again.
     */
    usage: z.extend(z.omit(UsageSchema, { cacheWriteTokens: true }), {
      inherited: z.optional(z.omit(UsageSchema, { cacheWriteTokens: true })),
    }),
    /**
     * Tokens, calls and cost per model role that made calls (`plan` on the heavy model, `execute` on
     * the fast one …), billed to this goal (a fork's inherited calls are in `usage.inherited`).
     */
    usageByRole: z.partialRecord(ModelRoleSchema, z.omit(UsageSchema, { cacheWriteTokens: true })),
    /**
     * Per model role, what its latest call that returned reasoning text reasoned (the model's
     * summary, bounded): why the agent acted as it did. Every call's is in its `model.usage` event.
     */
    reasoningByRole: z.partialRecord(ModelRoleSchema, LatestReasoningSchema),
    /** The limits the goal runs under now (a human may have raised them). */
    limits: LimitsSchema,
    /**
     * How far the contract is: per check `met` (evidence), `partial` (new evidence moved toward it, or
     * a human is being asked about it) or `not_met`; `overall` from 0 to 1, a partial check as half.
     */
    progress: z.object({
      overall: z.number().check(z.gte(0), z.lte(1)),
      checks: z.record(z.string(), z.enum(["met", "partial", "not_met"])),
    }),
    stopReason: z.nullable(StopReasonSchema),
    /** A human asked to pause the goal and it has not reached the step boundary where it pauses yet. */
    pauseRequested: z.optional(PauseRequestSchema),
    /** The goal that started this one as a sub-goal (absent for a goal a user posted). */
    parentGoalId: z.optional(z.string()),
    /** The goal and step this goal was forked from (`POST /goals/{goalId}/fork`); absent for any other goal. */
    forkedFrom: z.optional(ForkedFromSchema),
    /**
     * The sub-goals this goal started, as they are now (`GET /goals/{goalId}` reads them; a listing
     * shows the status each had when the parent last heard of it, and no progress).
     */
    children: z.optional(
      z.array(
        z.object({
          goalId: z.string(),
          status: GoalStatusSchema,
          progress: z.optional(
            z.object({
              overall: z.number().check(z.gte(0), z.lte(1)),
              checks: z.record(z.string(), z.enum(["met", "partial", "not_met"])),
            }),
          ),
          objective: z.string(),
          /** What a waiting child waits for: a human's answer shows here, under its parent. */
          waitingFor: z.optional(z.nullable(WaitingForSchema)),
        }),
      ),
    ),
    /** The latest compensation saga: how far it is, and the calls no compensator could undo. */
    compensation: z.optional(z.omit(SagaSchema, { processed: true })),
    /** The deployed version the goal runs on (`runsOn.version`); null for a goal older than versions. */
    version: z.nullable(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
export type GoalSnapshot = z.infer<typeof GoalSnapshotSchema>;
