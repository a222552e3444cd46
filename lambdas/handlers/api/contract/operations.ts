import { ForkRequestSchema, ReplayRequestSchema } from "../../../core/fork/fork-request";
import { ReplayResultSchema } from "../../../core/fork/replay";
import { TimelineSchema } from "../../../core/fork/step-timeline";
import { GoalEventSchema } from "../../../core/goal/goal-event";
import { ApprovalIdSchema, GoalIdSchema, RunIdSchema } from "../../../core/goal/goal-ids";
import { GoalSnapshotSchema } from "../../../core/goal/goal-record";
import { GoalSpecSchema } from "../../../core/goal/goal-spec";
import { LimitsPatchSchema } from "../../../core/goal/limits";
import { RevisionRequestSchema } from "../../../core/goal/revisions";
import { SlackDoorAnswerSchema } from "../../../core/human/slack/slack-door-answer";
import { TenantIdSchema, TenantLimitsPatchSchema } from "../../../core/tenants/tenant-limits";
import * as z from "../../../core/zod";
import { ListEventsQuerySchema, ListGoalsQuerySchema, ListStepsQuerySchema } from "../query-params";
import {
  DecideBodySchema,
  DirectiveBodySchema,
  ListApprovalsQuerySchema,
  ReasonBodySchema,
  RunHistoryQuerySchema,
} from "./request-schemas";
import {
  AcceptedGoalSchema,
  ApprovalPageSchema,
  ControlAcceptedSchema,
  DecidedApprovalSchema,
  EventPageSchema,
  ForkedGoalSchema,
  GoalChildrenSchema,
  GoalDetailsSchema,
  GoalPageSchema,
  GoalRunsSchema,
  LimitsAnswerSchema,
  RevisionAcceptedSchema,
  RunHistoryPageSchema,
  TenantLimitsAnswerSchema,
  TenantMeSchema,
} from "./response-schemas";

/**
 * The goals API, route by route: the one table the handlers route by, the OpenAPI document is
 * generated from, and the typed client and the MCP server call through. A route, a parameter or a
 * field is written here (or in the schema named here) and nowhere else.
 */

/** The document's tags, in the order it lists them. */
export const OPERATION_TAGS = [
  "goals",
  "steering",
  "approvals",
  "history",
  "tenants",
  "doors",
  "document",
] as const;
export type OperationTag = (typeof OPERATION_TAGS)[number];

/** One answer of an operation: JSON with a schema, a stream of Server-Sent Events, or no body. */
export interface OperationResponse {
  readonly description: string;
  readonly schema?: z.ZodMiniType;
  /** @default "application/json" when there is a schema */
  readonly contentType?: "application/json" | "text/event-stream" | "text/html";
}

export interface Operation {
  /** Stable: the client's method and the document's `operationId`. */
  readonly operationId: string;
  readonly method: "GET" | "POST";
  /** A template; each `{name}` is a path parameter described in PATH_PARAMETERS. */
  readonly path: string;
  readonly summary: string;
  readonly tag: OperationTag;
  readonly query?: z.ZodMiniObject;
  readonly body?: { readonly schema: z.ZodMiniType; readonly required: boolean };
  /** Takes an `Idempotency-Key` header: a retry answers as the first request did. */
  readonly idempotent?: true;
  /** The success answers, by status. */
  readonly responses: Readonly<Record<number, OperationResponse>>;
  /** Error statuses this operation answers on purpose (beyond the 4XX/5XX every route may). */
  readonly errors: readonly number[];
  /**
   * A door's error answers that are not in the API's error shape, by status (each also in
   * `errors`): the Slack door's messages, the e-mail door's pages.
   */
  readonly errorAnswers?: Readonly<Record<number, OperationResponse>>;
  /**
   * Who may call it: `api` any caller of the goals API (IAM/SigV4, or a bearer token when
   * api.auth.mode is jwt or iam+jwt), `iam` IAM alone (an operator's route), or a door's own signature.
   */
  readonly auth: "api" | "iam" | "slack-signature" | "email-link";
}

/** The path parameters of every template, each in the shape the system issues. */
export const PATH_PARAMETERS = {
  goalId: GoalIdSchema,
  approvalId: ApprovalIdSchema,
  runId: RunIdSchema,
  tenantId: TenantIdSchema,
} as const satisfies Record<string, z.ZodMiniType>;
export type PathParameter = keyof typeof PATH_PARAMETERS;

/** Keeps each operation's literal types (its schemas) for the typed client, checked as an Operation. */
const operation = <const O extends Operation>(spec: O): O => spec;

const CONTROL_STATUS_CONFLICT = [404, 409] as const;

export const OPERATIONS = {
  createGoal: operation({
    operationId: "createGoal",
    method: "POST",
    path: "/goals",
    tag: "goals",
    summary: "Start a goal: validate the GoalSpec, choose its pattern, store it and start its first run",
    body: { schema: GoalSpecSchema, required: true },
    idempotent: true,
    responses: { 202: { description: "stored and started", schema: AcceptedGoalSchema } },
    errors: [400, 422, 429],
    auth: "api",
  }),
  listGoals: operation({
    operationId: "listGoals",
    method: "GET",
    path: "/goals",
    tag: "goals",
    summary: "The caller's goals as snapshots, a page at a time",
    query: ListGoalsQuerySchema,
    responses: { 200: { description: "a page of snapshots", schema: GoalPageSchema } },
    errors: [400],
    auth: "api",
  }),
  getGoal: operation({
    operationId: "getGoal",
    method: "GET",
    path: "/goals/{goalId}",
    tag: "goals",
    summary: "The goal's snapshot, with its sub-goals as they are now",
    responses: { 200: { description: "the snapshot", schema: GoalSnapshotSchema } },
    errors: [404],
    auth: "api",
  }),
  listEvents: operation({
    operationId: "listEvents",
    method: "GET",
    path: "/goals/{goalId}/events",
    tag: "goals",
    summary: "Events after `after`; with `waitSeconds` a long poll that answers at the first new event",
    query: ListEventsQuerySchema,
    responses: { 200: { description: "a page of events", schema: EventPageSchema } },
    errors: [400, 404],
    auth: "api",
  }),
  streamEvents: operation({
    operationId: "streamEvents",
    method: "GET",
    path: "/goals/{goalId}/stream",
    tag: "goals",
    summary:
      "Server-Sent Events: one `event:` per goal event, `id:` its seq; resumes after `Last-Event-ID`; 204 when the goal is final and all was sent",
    responses: {
      200: {
        description:
          "the stream; each `data:` is one goal event: the schema describes one event's data, as OpenAPI 3.2's itemSchema would",
        contentType: "text/event-stream",
        schema: GoalEventSchema,
      },
      204: { description: "the goal is final and every event was sent" },
    },
    errors: [404, 429],
    auth: "api",
  }),
  listChildren: operation({
    operationId: "listChildren",
    method: "GET",
    path: "/goals/{goalId}/children",
    tag: "goals",
    summary: "The snapshots of the sub-goals the goal started, oldest first",
    responses: { 200: { description: "the sub-goals", schema: GoalChildrenSchema } },
    errors: [404],
    auth: "api",
  }),
  getDetails: operation({
    operationId: "getDetails",
    method: "GET",
    path: "/goals/{goalId}/details",
    tag: "goals",
    summary: "The contract, each check with its evidence, the plan, lessons and revisions",
    responses: { 200: { description: "the details", schema: GoalDetailsSchema } },
    errors: [404],
    auth: "api",
  }),
  listRuns: operation({
    operationId: "listRuns",
    method: "GET",
    path: "/goals/{goalId}/runs",
    tag: "history",
    summary: "Each run of the goal with its Step Functions execution",
    responses: { 200: { description: "the runs", schema: GoalRunsSchema } },
    errors: [404],
    auth: "api",
  }),
  getRunHistory: operation({
    operationId: "getRunHistory",
    method: "GET",
    path: "/goals/{goalId}/runs/{runId}/history",
    tag: "history",
    summary: "A page of one run's state history",
    query: RunHistoryQuerySchema,
    responses: { 200: { description: "a page of the history", schema: RunHistoryPageSchema } },
    errors: [400, 404],
    auth: "api",
  }),
  reviseGoal: operation({
    operationId: "reviseGoal",
    method: "POST",
    path: "/goals/{goalId}/revisions",
    tag: "steering",
    summary: "Queue a revision; it is applied at the goal's next step boundary",
    body: { schema: RevisionRequestSchema, required: true },
    responses: { 202: { description: "queued", schema: RevisionAcceptedSchema } },
    errors: [400, ...CONTROL_STATUS_CONFLICT],
    auth: "api",
  }),
  postDirective: operation({
    operationId: "postDirective",
    method: "POST",
    path: "/goals/{goalId}/directive",
    tag: "steering",
    summary: "The `/goal` directive: `status` answers the snapshot, the others queue a revision",
    body: { schema: DirectiveBodySchema, required: true },
    responses: {
      200: { description: "`/goal status`: the snapshot", schema: GoalSnapshotSchema },
      202: { description: "a revision was queued", schema: RevisionAcceptedSchema },
    },
    errors: [400, ...CONTROL_STATUS_CONFLICT],
    auth: "api",
  }),
  pauseGoal: operation({
    operationId: "pauseGoal",
    method: "POST",
    path: "/goals/{goalId}/pause",
    tag: "steering",
    summary: "Pause a running or waiting goal at its next step boundary",
    body: { schema: ReasonBodySchema, required: false },
    responses: { 202: { description: "requested", schema: ControlAcceptedSchema } },
    errors: [400, ...CONTROL_STATUS_CONFLICT],
    auth: "api",
  }),
  resumeGoal: operation({
    operationId: "resumeGoal",
    method: "POST",
    path: "/goals/{goalId}/resume",
    tag: "steering",
    summary: "Resume a paused goal in a new run (or withdraw a pause not yet taken)",
    responses: { 202: { description: "requested", schema: ControlAcceptedSchema } },
    errors: CONTROL_STATUS_CONFLICT,
    auth: "api",
  }),
  retryGoal: operation({
    operationId: "retryGoal",
    method: "POST",
    path: "/goals/{goalId}/retry",
    tag: "steering",
    summary: "Redrive a failed goal, or start a new run from its checkpoint",
    responses: { 202: { description: "requested", schema: ControlAcceptedSchema } },
    errors: CONTROL_STATUS_CONFLICT,
    auth: "api",
  }),
  setLimits: operation({
    operationId: "setLimits",
    method: "POST",
    path: "/goals/{goalId}/limits",
    tag: "steering",
    summary: "Raise limits; answers a limit decision the goal waits on",
    body: { schema: LimitsPatchSchema, required: true },
    responses: { 200: { description: "the limits now", schema: LimitsAnswerSchema } },
    errors: [400, ...CONTROL_STATUS_CONFLICT],
    auth: "api",
  }),
  cancelGoal: operation({
    operationId: "cancelGoal",
    method: "POST",
    path: "/goals/{goalId}/cancel",
    tag: "steering",
    summary: "Cancel a goal that is not final (irreversible)",
    body: { schema: ReasonBodySchema, required: false },
    responses: { 202: { description: "requested", schema: ControlAcceptedSchema } },
    errors: [400, ...CONTROL_STATUS_CONFLICT],
    auth: "api",
  }),
  listSteps: operation({
    operationId: "listSteps",
    method: "GET",
    path: "/goals/{goalId}/steps",
    tag: "history",
    summary: "The step timeline, a page at a time, with the goal's approvals",
    query: ListStepsQuerySchema,
    responses: { 200: { description: "a page of the timeline", schema: TimelineSchema } },
    errors: [400, 404],
    auth: "api",
  }),
  forkGoal: operation({
    operationId: "forkGoal",
    method: "POST",
    path: "/goals/{goalId}/fork",
    tag: "history",
    summary: "A new goal that starts where this one stood after `atStep`",
    body: { schema: ForkRequestSchema, required: true },
    idempotent: true,
    responses: { 202: { description: "forked and started", schema: ForkedGoalSchema } },
    errors: [400, 404, 409, 422, 429],
    auth: "api",
  }),
  replayGoal: operation({
    operationId: "replayGoal",
    method: "POST",
    path: "/goals/{goalId}/replay",
    tag: "history",
    summary: "Rebuild the state from checkpoints alone and name the first step that disagrees",
    body: { schema: ReplayRequestSchema, required: false },
    responses: { 200: { description: "the replay", schema: ReplayResultSchema } },
    errors: [400, 404],
    auth: "api",
  }),
  listApprovals: operation({
    operationId: "listApprovals",
    method: "GET",
    path: "/approvals",
    tag: "approvals",
    summary: "The caller's approvals (pending by default)",
    query: ListApprovalsQuerySchema,
    responses: { 200: { description: "the approvals", schema: ApprovalPageSchema } },
    errors: [400],
    auth: "api",
  }),
  decideApproval: operation({
    operationId: "decideApproval",
    method: "POST",
    path: "/approvals/{approvalId}",
    tag: "approvals",
    summary: "Approve or reject; 409 when already decided, 410 when expired",
    body: { schema: DecideBodySchema, required: true },
    responses: { 200: { description: "decided", schema: DecidedApprovalSchema } },
    errors: [400, 404, 409, 410],
    auth: "api",
  }),
  getMyTenant: operation({
    operationId: "getMyTenant",
    method: "GET",
    path: "/tenants/me",
    tag: "tenants",
    summary: "Who the caller is (tenant, how it signed in), its tenant's limits now and what it uses of them",
    responses: { 200: { description: "the caller's tenant", schema: TenantMeSchema } },
    errors: [],
    auth: "api",
  }),
  setTenantLimits: operation({
    operationId: "setTenantLimits",
    method: "POST",
    path: "/tenants/{tenantId}/limits",
    tag: "tenants",
    summary:
      "An operator (an IAM principal tenants.admins names) sets a tenant's limits: a number sets one, null lifts it",
    body: { schema: TenantLimitsPatchSchema, required: true },
    responses: { 200: { description: "the limits now in effect", schema: TenantLimitsAnswerSchema } },
    errors: [400, 403],
    auth: "iam",
  }),
  getOpenApiDocument: operation({
    operationId: "getOpenApiDocument",
    method: "GET",
    path: "/openapi.json",
    tag: "document",
    summary: "This document (OpenAPI 3.1), generated from the zod schemas",
    responses: { 200: { description: "the OpenAPI document", schema: z.record(z.string(), z.unknown()) } },
    errors: [],
    auth: "api",
  }),
} as const;

export type OperationId = keyof typeof OPERATIONS;

/**
 * The doors a human answers through, served by functions of their own with their own signatures
 * (DESIGN §5). Described so the document covers every path the stack serves; their bodies are
 * Slack's and a browser form's, read by those handlers.
 */
/**
 * Slack's answers: empty (Slack leaves the conversation as it is) or a message. The body is
 * optional, as OpenAPI's `content` lists only potential payloads.
 */
const SLACK_ANSWER: OperationResponse = {
  description: "acknowledged: no body, or a message for the person who acted or the channel",
  schema: SlackDoorAnswerSchema,
};
/** A request Slack sent that the door refuses (400) or a user who is not an approver (403). */
const SLACK_REFUSALS: Readonly<Record<number, OperationResponse>> = {
  400: {
    description: "not a request the door understands, said as a message",
    schema: SlackDoorAnswerSchema,
  },
  403: { description: "the user is not an approver, said as a message", schema: SlackDoorAnswerSchema },
};
/** The e-mail door answers a browser: every outcome is a page saying what happened. */
function emailPages(statuses: readonly number[]): Readonly<Record<number, OperationResponse>> {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: "a page saying what happened", contentType: "text/html" },
    ]),
  );
}

export const DOOR_OPERATIONS: readonly Operation[] = [
  {
    operationId: "slackInteractions",
    method: "POST",
    path: "/slack/interactions",
    tag: "doors",
    summary: "Slack's interactivity callback (buttons); Slack-signed (v0 HMAC, 5-minute window)",
    responses: { 200: SLACK_ANSWER },
    errors: [400, 401, 403],
    errorAnswers: SLACK_REFUSALS,
    auth: "slack-signature",
  },
  {
    operationId: "slackCommands",
    method: "POST",
    path: "/slack/commands",
    tag: "doors",
    summary: "The `/goal` slash command; Slack-signed",
    responses: { 200: SLACK_ANSWER },
    errors: [400, 401, 403],
    errorAnswers: SLACK_REFUSALS,
    auth: "slack-signature",
  },
  {
    operationId: "emailApprovalPage",
    method: "GET",
    path: "/email/approvals/{approvalId}",
    tag: "doors",
    summary: "An emailed approval link: a confirmation page (a GET never decides)",
    responses: { 200: { description: "the confirmation page", contentType: "text/html" } },
    errors: [400, 403, 404],
    errorAnswers: emailPages([400, 403, 404]),
    auth: "email-link",
  },
  {
    operationId: "emailApprovalDecision",
    method: "POST",
    path: "/email/approvals/{approvalId}",
    tag: "doors",
    summary: "The confirmation page's form: decides the approval",
    responses: { 200: { description: "the outcome page", contentType: "text/html" } },
    errors: [400, 403, 404, 409, 410],
    errorAnswers: emailPages([400, 403, 404, 409, 410]),
    auth: "email-link",
  },
];

/** Every operation the document describes: the goals API's and the doors'. */
export function allOperations(): readonly Operation[] {
  return [...Object.values(OPERATIONS), ...DOOR_OPERATIONS];
}
