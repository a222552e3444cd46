import * as z from "zod";
import { GoalEventSchema } from "../../../lambdas/core/goal/goal-event";
import { GoalSnapshotSchema, type RevisionType } from "../../../lambdas/core/goal/goal-record";
import { LimitsSchema, type SuccessCheck } from "../../../lambdas/core/goal/goal-spec";
import type { LimitsPatch } from "../../../lambdas/core/goal/limits";
import { type APPROVAL_STATUSES, ApprovalSchema } from "../../../lambdas/core/ports/goal-store";

const AcceptedGoalSchema = z.object({
  goalId: z.string(),
  status: z.string(),
  pattern: z.string(),
  runId: z.string(),
});
export type AcceptedGoal = z.infer<typeof AcceptedGoalSchema>;

const ApiErrorSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string().optional(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  }),
});
export type ApiErrorBody = z.infer<typeof ApiErrorSchema>["error"];

const EventPageSchema = z.object({ items: z.array(GoalEventSchema), nextSeq: z.number().int() });

/** An approval as the API shows it: the stored record without its task token (which never leaves the store). */
export const PublicApprovalSchema = ApprovalSchema.omit({ taskToken: true, tenantId: true }).extend({
  action: ApprovalSchema.shape.action.partial({ fingerprint: true }),
});
export type PublicApproval = z.infer<typeof PublicApprovalSchema>;
export type ApprovalListStatus = (typeof APPROVAL_STATUSES)[number];

const ApprovalListSchema = z.object({ items: z.array(PublicApprovalSchema) }).transform((page) => page.items);
const DecidedApprovalSchema = z.object({ approval: PublicApprovalSchema });
const RevisionAcceptedSchema = z.object({ revisionId: z.string() });
const ControlAcceptedSchema = z.object({ goalId: z.string(), requested: z.string() });
const LimitsAnswerSchema = z.object({ goalId: z.string(), limits: LimitsSchema });
/** `status` answers the snapshot; the other directives queue a revision. */
const DirectiveAnswerSchema = z.union([RevisionAcceptedSchema, GoalSnapshotSchema]);

export interface RevisionRequest {
  readonly type: RevisionType;
  readonly content: string;
  readonly reason?: string;
  /** The new contract's checks (redirect, pivot, modify_objective only). */
  readonly successChecks?: readonly SuccessCheck[];
}

/** The API answered with an error body (`{error:{code, message, issues}}`). */
export class GoalsApiError extends Error {
  override readonly name = "GoalsApiError";
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(`${status} ${body.code}${body.message ? `: ${body.message}` : ""}`);
  }
}

/** A small client for the goals HTTP API (DESIGN §6), used by the CLI and the end-to-end tests. */
export class GoalsClient {
  constructor(private readonly baseUrl: string) {}

  async submitGoal(spec: unknown, options: { idempotencyKey?: string } = {}): Promise<AcceptedGoal> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (options.idempotencyKey) headers["idempotency-key"] = options.idempotencyKey;
    return this.request("POST", "/goals", AcceptedGoalSchema, { body: JSON.stringify(spec), headers });
  }

  async getGoal(goalId: string) {
    return this.request("GET", `/goals/${encodeURIComponent(goalId)}`, GoalSnapshotSchema);
  }

  /** `GET /goals/{goalId}/children`: the snapshots of the sub-goals the goal started. */
  async listChildren(goalId: string) {
    return this.request(
      "GET",
      `/goals/${encodeURIComponent(goalId)}/children`,
      z.object({ items: z.array(GoalSnapshotSchema) }),
    );
  }

  async listEvents(goalId: string, after: number) {
    return this.request("GET", `/goals/${encodeURIComponent(goalId)}/events?after=${after}`, EventPageSchema);
  }

  /** `GET /approvals?status=…` (the API never shows task tokens). */
  async listApprovals(status: ApprovalListStatus = "pending"): Promise<readonly PublicApproval[]> {
    return this.request("GET", `/approvals?status=${encodeURIComponent(status)}`, ApprovalListSchema);
  }

  /** `POST /approvals/{approvalId}`: 409 ApprovalAlreadyDecided, 410 ApprovalExpired, 404 as GoalsApiError. */
  async decideApproval(approvalId: string, decision: "approve" | "reject", comment?: string) {
    const body = JSON.stringify(comment === undefined ? { decision } : { decision, comment });
    const answer = await this.request(
      "POST",
      `/approvals/${encodeURIComponent(approvalId)}`,
      DecidedApprovalSchema,
      {
        body,
        headers: JSON_HEADERS,
      },
    );
    return answer.approval;
  }

  /** `POST /goals/{goalId}/revisions` → `{revisionId}`; applied at the goal's next step boundary. */
  async revise(goalId: string, revision: RevisionRequest) {
    return this.post(`/goals/${encodeURIComponent(goalId)}/revisions`, RevisionAcceptedSchema, revision);
  }

  /** `POST /goals/{goalId}/directive` `{text}`: the `/goal` directive (a snapshot for `status`). */
  async directive(goalId: string, text: string) {
    return this.post(`/goals/${encodeURIComponent(goalId)}/directive`, DirectiveAnswerSchema, { text });
  }

  /** `POST /goals/{goalId}/resume`: accepted for a paused goal, else a 409 GoalsApiError with the reason. */
  async resume(goalId: string) {
    return this.post(`/goals/${encodeURIComponent(goalId)}/resume`, ControlAcceptedSchema, undefined);
  }

  /** `POST /goals/{goalId}/retry`: accepted for a failed goal, else a 409 GoalsApiError with the reason. */
  async retry(goalId: string) {
    return this.post(`/goals/${encodeURIComponent(goalId)}/retry`, ControlAcceptedSchema, undefined);
  }

  /** `POST /goals/{goalId}/limits` with the limits to change: the goal's limits afterwards (409 when final). */
  async setLimits(goalId: string, patch: LimitsPatch) {
    return this.post(`/goals/${encodeURIComponent(goalId)}/limits`, LimitsAnswerSchema, patch);
  }

  /** `POST /goals/{goalId}/cancel` `{reason?}`: accepted for a goal that is not final, else 409. */
  async cancel(goalId: string, reason?: string) {
    return this.post(
      `/goals/${encodeURIComponent(goalId)}/cancel`,
      ControlAcceptedSchema,
      reason === undefined ? undefined : { reason },
    );
  }

  /**
   * True when a goals API answers at the base URL (the local stack is up). Nothing listening fails at
   * once; the wait is for a stack that is up but slow to answer its first request.
   */
  async isReachable(): Promise<boolean> {
    try {
      const response = await fetch(`${this.baseUrl}/goals?limit=1`, { signal: AbortSignal.timeout(5000) });
      return response.status < 500;
    } catch {
      return false;
    }
  }

  private post<S extends z.ZodType>(path: string, schema: S, body: unknown): Promise<z.output<S>> {
    return this.request(
      "POST",
      path,
      schema,
      body === undefined ? {} : { body: JSON.stringify(body), headers: JSON_HEADERS },
    );
  }

  private async request<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    init: { body?: string; headers?: Record<string, string> } = {},
  ): Promise<z.output<S>> {
    const response = await fetch(`${this.baseUrl}${path}`, { method, ...init });
    const text = await response.text();
    const json = parseJson(text);
    if (!response.ok) {
      const error = ApiErrorSchema.safeParse(json);
      throw new GoalsApiError(
        response.status,
        error.success ? error.data.error : { code: `HTTP${response.status}`, message: text.slice(0, 500) },
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new Error(`Unexpected answer from ${method} ${path}: ${parsed.error.message}`);
    }
    return parsed.data;
  }
}

const JSON_HEADERS: Readonly<Record<string, string>> = { "content-type": "application/json" };

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
