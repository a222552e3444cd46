import { ReplayResultSchema } from "../../../core/fork/replay";
import { TimelineSchema } from "../../../core/fork/step-timeline";
import { EvidenceSchema } from "../../../core/goal/evidence/evidence";
import { ForkedFromSchema } from "../../../core/goal/fork";
import { GoalEventSchema } from "../../../core/goal/goal-event";
import {
  ContractProposalSchema,
  GatedCallSchema,
  GoalSnapshotSchema,
  GoalStatusSchema,
  QueuedRevisionSchema,
  RevisionLogEntrySchema,
} from "../../../core/goal/goal-record";
import {
  ApprovalPolicySchema,
  HintsSchema,
  LimitsSchema,
  ModelOverridesSchema,
  PatternSchema,
  SuccessCheckSchema,
  VerifySchema,
} from "../../../core/goal/goal-spec";
import { LessonSchema } from "../../../core/goal/lesson";
import {
  PlanStateSchema,
  PlanStepStateSchema,
  ReplanRecordSchema,
  ReplanRequestSchema,
} from "../../../core/goal/plan";
import { APPROVAL_STATUSES } from "../../../core/ports/goal-store";
import { TenantUsageSchema } from "../../../core/tenants/tenant-directory";
import { TenantIdSchema, TenantLimitsSchema } from "../../../core/tenants/tenant-limits";
import { CallerViaSchema } from "../../../core/tenants/tenants-settings";
import * as z from "../../../core/zod";

/**
 * What the goals API answers, route by route. The handlers build these answers, the OpenAPI
 * document describes them and the typed client parses them: this file (with the core schemas it
 * names) is the one source of every response shape.
 */

const wholeNumber = () => z.number().check(z.int());

/** `POST /goals` → 202: the goal was stored and its first run started. */
export const AcceptedGoalSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    goalId: z.string(),
    status: GoalStatusSchema,
    pattern: PatternSchema,
    runId: z.string(),
  }),
);
export type AcceptedGoal = z.infer<typeof AcceptedGoalSchema>;

/** `POST /goals/{goalId}/fork` → 202: the new goal and where it was forked from. */
export const ForkedGoalSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.extend(AcceptedGoalSchema, { forkedFrom: ForkedFromSchema }),
);
export type ForkedGoal = z.infer<typeof ForkedGoalSchema>;

/** `GET /goals` → a page of snapshots; pass `cursor` back for the next one. */
export const GoalPageSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    items: z.array(GoalSnapshotSchema),
    cursor: z.optional(z.string()),
  }),
);
export type GoalPage = z.infer<typeof GoalPageSchema>;

/** `GET /goals/{goalId}/children` */
export const GoalChildrenSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({ items: z.array(GoalSnapshotSchema) }),
);

/** `GET /goals/{goalId}/events` → events after `after`; pass `nextSeq` as `after` next. */
export const EventPageSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({ items: z.array(GoalEventSchema), nextSeq: wholeNumber() }),
);
export type EventPage = z.infer<typeof EventPageSchema>;

/** `POST /goals/{goalId}/revisions` (and a revising directive) → 202. */
export const RevisionAcceptedSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({ goalId: z.string(), revisionId: z.string() }),
);
export type RevisionAccepted = z.infer<typeof RevisionAcceptedSchema>;

/** `pause`, `resume`, `retry`, `cancel` → 202: the request was published; the loop applies it. */
export const ControlAcceptedSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    goalId: z.string(),
    requested: z.enum(["pause", "resume", "retry", "cancel"]),
  }),
);
export type ControlAccepted = z.infer<typeof ControlAcceptedSchema>;

/** `POST /goals/{goalId}/limits` → 200: the limits the goal runs under now. */
export const LimitsAnswerSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({ goalId: z.string(), limits: LimitsSchema }),
);

/**
 * An approval as the API shows it. Built field by field from the stored approval (never spread):
 * the task token and the action's fingerprint stay in the store.
 */
export const ApprovalViewSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    approvalId: z.string(),
    goalId: z.string(),
    runId: z.string(),
    status: z.enum(APPROVAL_STATUSES),
    action: z.strictObject({
      kind: z.string(),
      summary: z.string(),
      calls: z.optional(z.array(GatedCallSchema)),
    }),
    revision: z.number().check(z.int(), z.gte(1)),
    requestedAt: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
    decision: z.optional(
      z.strictObject({
        decision: z.enum(["approve", "reject"]),
        decidedBy: z.string(),
        comment: z.optional(z.string()),
        decidedAt: z.iso.datetime(),
      }),
    ),
  }),
);
export type ApprovalView = z.infer<typeof ApprovalViewSchema>;

/** `GET /approvals` */
export const ApprovalPageSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({ items: z.array(ApprovalViewSchema) }),
);

/** `POST /approvals/{approvalId}` → 200 */
export const DecidedApprovalSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({ approval: ApprovalViewSchema }),
);

/** `GET /goals/{goalId}/runs`: each run with its Step Functions execution (null when it is gone). */
export const GoalRunsSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    goalId: z.string(),
    items: z.array(
      z.object({
        runId: z.string(),
        current: z.boolean(),
        execution: z.nullable(
          z.object({
            executionArn: z.string(),
            status: z.string(),
            startDate: z.string(),
            stopDate: z.optional(z.string()),
            error: z.optional(z.string()),
            cause: z.optional(z.string()),
            redriveCount: z.optional(wholeNumber()),
          }),
        ),
      }),
    ),
  }),
);
export type GoalRuns = z.infer<typeof GoalRunsSchema>;

/** `GET /goals/{goalId}/runs/{runId}/history`: a page of the run's state history. */
export const RunHistoryPageSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    goalId: z.string(),
    runId: z.string(),
    events: z.array(
      z.object({
        id: z.number(),
        previousEventId: z.optional(z.number()),
        timestamp: z.string(),
        type: z.string(),
        details: z.optional(z.record(z.string(), z.unknown())),
      }),
    ),
    nextToken: z.optional(z.string()),
  }),
);
export type RunHistoryPage = z.infer<typeof RunHistoryPageSchema>;

export { ReplayResultSchema, TimelineSchema };

/**
 * `GET /tenants/me`: who the caller is (its tenant, how it signed in, whether it may change
 * limits), the limits its tenant runs under now, and what it uses of them.
 */
export const TenantMeSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    tenantId: TenantIdSchema,
    caller: z.string(),
    via: CallerViaSchema,
    admin: z.boolean(),
    limits: TenantLimitsSchema,
    usage: TenantUsageSchema,
  }),
);
export type TenantMe = z.infer<typeof TenantMeSchema>;

/** `POST /tenants/{tenantId}/limits` → 200: the limits now in effect for the tenant. */
export const TenantLimitsAnswerSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({ tenantId: TenantIdSchema, limits: TenantLimitsSchema }),
);
export type TenantLimitsAnswer = z.infer<typeof TenantLimitsAnswerSchema>;

/**
 * `GET /goals/{goalId}/details`: what a person reads about a goal beyond its snapshot, for the
 * console: the contract as it stands, each check with its state and evidence, the plan, the
 * attempts and lessons, the revision log with what reconcile decided, revisions still queued, a
 * new contract waiting for confirmation, and the MCP tools frozen into it. Built field by field:
 * nothing internal (checkpoints, fingerprints, task tokens, run markers) is included.
 */
export const GoalDetailsSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    goalId: z.string(),
    status: GoalStatusSchema,
    revision: wholeNumber(),
    pattern: PatternSchema,
    patternReason: z.string(),
    contract: z.object({
      objective: z.string(),
      scope: z.array(z.string()),
      constraints: z.array(z.string()),
      successChecks: z.array(SuccessCheckSchema),
      limits: LimitsSchema,
      tools: z.array(z.string()),
      approval: ApprovalPolicySchema,
      models: z.optional(ModelOverridesSchema),
      hints: z.optional(HintsSchema),
    }),
    checks: z.array(
      z.object({
        id: z.string(),
        description: z.string(),
        verify: VerifySchema,
        state: z.enum(["met", "partial", "not_met"]),
        evidence: z.nullable(EvidenceSchema),
      }),
    ),
    plan: z.nullable(
      z.object({
        version: wholeNumber(),
        steps: z.array(PlanStepStateSchema),
        current: z.nullable(PlanStateSchema.shape.current.def.innerType),
        pendingReplan: z.nullable(ReplanRequestSchema),
        history: z.array(ReplanRecordSchema),
      }),
    ),
    attempts: wholeNumber(),
    lessons: z.array(LessonSchema),
    revisions: z.array(RevisionLogEntrySchema),
    queuedRevisions: z.array(QueuedRevisionSchema),
    contractProposal: z.nullable(ContractProposalSchema),
    tools: z.array(
      z.object({
        name: z.string(),
        server: z.string(),
        tool: z.string(),
        risk: z.string(),
        definitionHash: z.string(),
      }),
    ),
    runId: z.string(),
    previousRunId: z.nullable(z.string()),
  }),
);
export type GoalDetails = z.infer<typeof GoalDetailsSchema>;

/** One bad field of a request: its path (`successChecks.0.verify`) and what is wrong with it. */
export const ValidationIssueSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({ path: z.string(), message: z.string() }),
);

/**
 * The one error shape of the API: `{error: {code, message, …}}`. `code` is stable (clients branch
 * on it, and the client's error classes are named by it); the other fields appear with the errors
 * that carry them. Strict, so an error that grows an undocumented field fails the response check.
 */
export const ApiErrorSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    error: z.strictObject({
      code: z.string(),
      message: z.string(),
      /** ValidationError: every bad field. */
      issues: z.optional(z.array(ValidationIssueSchema)),
      /** InternalError: the id the server's log line carries. */
      requestId: z.optional(z.string()),
      goalId: z.optional(z.string()),
      status: z.optional(z.string()),
      pattern: z.optional(z.string()),
      server: z.optional(z.string()),
      reason: z.optional(z.string()),
      /** ApprovalAlreadyDecided, ApprovalExpired: the approval as it stands. */
      approval: z.optional(ApprovalViewSchema),
      /** TenantStartLimit (429): the limit that refused, its tenant, and the seconds Retry-After says. */
      limit: z.optional(z.string()),
      tenantId: z.optional(z.string()),
      retryAfterSeconds: z.optional(z.number()),
    }),
    /** API Gateway's own answers (throttled, unsigned, unknown path) carry the request id here. */
    requestId: z.optional(z.string()),
  }),
);
export type ApiErrorBody = z.infer<typeof ApiErrorSchema>["error"];

/** API Gateway's answer when the integration failed (the function crashed or timed out): 502. */
export const GatewayFailureSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({ message: z.string() }),
);
