import * as z from "zod";
import type { ForkRequest } from "../../../lambdas/core/fork/fork-request";
import { ReplayResultSchema } from "../../../lambdas/core/fork/replay";
import { TimelineSchema } from "../../../lambdas/core/fork/step-timeline";
import { ForkedFromSchema } from "../../../lambdas/core/goal/fork";
import { GoalEventSchema } from "../../../lambdas/core/goal/goal-event";
import { SseParser } from "../../../lambdas/core/goal/goal-event-stream";
import {
  GoalSnapshotSchema,
  type GoalStatus,
  type RevisionType,
} from "../../../lambdas/core/goal/goal-record";
import { LimitsSchema, type SuccessCheck } from "../../../lambdas/core/goal/goal-spec";
import { isFinal } from "../../../lambdas/core/goal/goal-status";
import type { LimitsPatch } from "../../../lambdas/core/goal/limits";
import { type APPROVAL_STATUSES, ApprovalSchema } from "../../../lambdas/core/ports/goal-store";
import * as mini from "../../../lambdas/core/zod";
import { type GoalDetails, GoalDetailsSchema } from "../../../lambdas/handlers/api/goal-details";

const AcceptedGoalSchema = z.object({
  goalId: z.string(),
  status: z.string(),
  pattern: z.string(),
  runId: z.string(),
});
export type AcceptedGoal = z.infer<typeof AcceptedGoalSchema>;

const ForkedGoalSchema = AcceptedGoalSchema.extend({ forkedFrom: ForkedFromSchema });
export type ForkedGoal = z.infer<typeof ForkedGoalSchema>;

const ApiErrorSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string().optional(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  }),
});
export type ApiErrorBody = z.infer<typeof ApiErrorSchema>["error"];

export type { GoalDetails };

const RunsSchema = z.object({
  goalId: z.string(),
  items: z.array(
    z.object({
      runId: z.string(),
      current: z.boolean(),
      execution: z
        .object({
          executionArn: z.string(),
          status: z.string(),
          startDate: z.string(),
          stopDate: z.string().optional(),
          error: z.string().optional(),
          cause: z.string().optional(),
        })
        .nullable(),
    }),
  ),
});
export type GoalRuns = z.infer<typeof RunsSchema>;

const RunHistorySchema = z.object({
  runId: z.string(),
  events: z.array(
    z.object({
      id: z.number(),
      previousEventId: z.number().optional(),
      timestamp: z.string(),
      type: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
  nextToken: z.string().optional(),
});
export type RunHistoryPage = z.infer<typeof RunHistorySchema>;

const EventPageSchema = z.object({ items: z.array(GoalEventSchema), nextSeq: z.number().int() });

/** An approval as the API shows it: the stored record without its task token (which never leaves the store). */
export const PublicApprovalSchema = mini.extend(
  mini.omit(ApprovalSchema, { taskToken: true, tenantId: true }),
  {
    action: mini.partial(ApprovalSchema.shape.action, { fingerprint: true }),
  },
);
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

/** What the client sends requests with: `fetch`, or one that signs them (SigV4 against a deployed stack). */
export type ApiFetch = (url: string, init?: RequestInit) => Promise<Response>;

/** A small client for the goals HTTP API (DESIGN §6), used by the CLI and the end-to-end tests. */
export class GoalsClient {
  private readonly fetch: ApiFetch;
  /** The API's URL without a trailing slash (a deployed stage URL ends with one). */
  readonly baseUrl: string;

  constructor(baseUrl: string, options: { fetch?: ApiFetch } = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.fetch = options.fetch ?? ((url, init) => fetch(url, init));
  }

  /**
   * The long poll: events after `after`, answered as soon as there is one, or empty after
   * `waitSeconds` (at most 20).
   */
  async waitForEvents(goalId: string, after: number, waitSeconds: number, signal?: AbortSignal) {
    return this.request(
      "GET",
      `/goals/${encodeURIComponent(goalId)}/events?after=${after}&waitSeconds=${waitSeconds}`,
      EventPageSchema,
      signal ? { signal } : {},
    );
  }

  /**
   * The goal's events from `after` on, as the stream (`GET /goals/{goalId}/stream`, Server-Sent
   * Events) delivers them. A stream the server ends (its 15-minute cap, a network hiccup) is
   * reopened from the last id; it is over when the server answers 204 (the goal is final and
   * everything was sent) or `signal` aborts. A server without the stream route (404/405), or one
   * with every stream it allows open already (429), is followed by the long poll instead.
   */
  async *streamEvents(goalId: string, options: { after?: number; signal?: AbortSignal } = {}) {
    let after = options.after ?? 0;
    const path = `/goals/${encodeURIComponent(goalId)}/stream`;
    let failures = 0;
    while (!options.signal?.aborted) {
      let response: Response;
      try {
        response = await this.fetch(`${this.baseUrl}${path}`, {
          headers: { accept: "text/event-stream", "last-event-id": String(after) },
          ...(options.signal ? { signal: options.signal } : {}),
        });
      } catch (error) {
        if (options.signal?.aborted) return;
        if (++failures > 5) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250 * failures));
        continue;
      }
      if (response.status === 204) return;
      if (response.status === 404 || response.status === 405 || response.status === 429) {
        const text = await response.text();
        const error = ApiErrorSchema.safeParse(parseJson(text));
        if (error.success && error.data.error.code === "GoalNotFound") {
          throw new GoalsApiError(404, error.data.error);
        }
        yield* this.pollEvents(goalId, after, options.signal);
        return;
      }
      if (!response.ok || response.body === null) {
        const text = await response.text();
        const error = ApiErrorSchema.safeParse(parseJson(text));
        throw new GoalsApiError(
          response.status,
          error.success ? error.data.error : { code: `HTTP${response.status}`, message: text.slice(0, 500) },
        );
      }
      failures = 0;
      const parser = new SseParser();
      const decoder = new TextDecoder();
      try {
        for await (const chunk of response.body) {
          for (const frame of parser.push(decoder.decode(chunk, { stream: true }))) {
            const event = GoalEventSchema.safeParse(parseJson(frame.data));
            if (!event.success || event.data.seq <= after) continue;
            after = event.data.seq;
            yield event.data;
          }
        }
      } catch (error) {
        if (options.signal?.aborted) return;
        // The connection broke mid-stream: reopen from the last event seen.
        if (++failures > 5) throw error;
      }
    }
  }

  /** The long poll as a stream: for a server without the stream route. Ends when the goal is final. */
  private async *pollEvents(goalId: string, from: number, signal?: AbortSignal) {
    let after = from;
    while (!signal?.aborted) {
      const page = await this.waitForEvents(goalId, after, 20, signal);
      for (const event of page.items) yield event;
      after = page.nextSeq;
      if (page.items.length === 0 && isFinal((await this.getGoal(goalId)).status)) return;
    }
  }

  async submitGoal(spec: unknown, options: { idempotencyKey?: string } = {}): Promise<AcceptedGoal> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (options.idempotencyKey) headers["idempotency-key"] = options.idempotencyKey;
    return this.request("POST", "/goals", AcceptedGoalSchema, { body: JSON.stringify(spec), headers });
  }

  /** `GET /goals/{goalId}/details`: the contract, checks with evidence, plan, lessons, revisions. */
  async getDetails(goalId: string): Promise<GoalDetails> {
    return this.request("GET", `/goals/${encodeURIComponent(goalId)}/details`, GoalDetailsSchema);
  }

  /** `GET /goals/{goalId}/runs`: each run with its Step Functions execution. */
  async listRuns(goalId: string): Promise<GoalRuns> {
    return this.request("GET", `/goals/${encodeURIComponent(goalId)}/runs`, RunsSchema);
  }

  /** `GET /goals/{goalId}/runs/{runId}/history`: a page of the run's state history. */
  async runHistory(goalId: string, runId: string, nextToken?: string): Promise<RunHistoryPage> {
    const query = nextToken === undefined ? "" : `?nextToken=${encodeURIComponent(nextToken)}`;
    const path = `/goals/${encodeURIComponent(goalId)}/runs/${encodeURIComponent(runId)}/history${query}`;
    return this.request("GET", path, RunHistorySchema);
  }

  /** `GET /goals?status=&limit=&cursor=`: a page of the caller's goals, newest status first. */
  async listGoals(query: { status?: GoalStatus; limit?: number; cursor?: string } = {}) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
    const search = params.size === 0 ? "" : `?${params.toString()}`;
    return this.request(
      "GET",
      `/goals${search}`,
      z.object({ items: z.array(GoalSnapshotSchema), cursor: z.string().optional() }),
    );
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

  /**
   * `POST /goals/{goalId}/pause` `{reason?}`: accepted for a running or waiting goal (it pauses at its
   * next step boundary), else a 409 GoalsApiError with the reason.
   */
  async pause(goalId: string, reason?: string) {
    return this.post(
      `/goals/${encodeURIComponent(goalId)}/pause`,
      ControlAcceptedSchema,
      reason === undefined ? undefined : { reason },
    );
  }

  /**
   * `POST /goals/{goalId}/resume`: accepted for a paused goal (or one whose pause has not taken effect
   * yet: the pause is withdrawn), else a 409 GoalsApiError with the reason.
   */
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

  /** `GET /goals/{goalId}/steps?after=&limit=`: a page of the step timeline, with the goal's approvals. */
  async steps(goalId: string, page: { after?: number; limit?: number } = {}) {
    const query = new URLSearchParams();
    if (page.after !== undefined) query.set("after", String(page.after));
    if (page.limit !== undefined) query.set("limit", String(page.limit));
    const suffix = query.size === 0 ? "" : `?${query}`;
    return this.request("GET", `/goals/${encodeURIComponent(goalId)}/steps${suffix}`, TimelineSchema);
  }

  /** `POST /goals/{goalId}/fork`: a new goal that starts where this one stood after `atStep`. */
  async fork(
    goalId: string,
    request: ForkRequest,
    options: { idempotencyKey?: string } = {},
  ): Promise<ForkedGoal> {
    const headers: Record<string, string> = { ...JSON_HEADERS };
    if (options.idempotencyKey) headers["idempotency-key"] = options.idempotencyKey;
    return this.request("POST", `/goals/${encodeURIComponent(goalId)}/fork`, ForkedGoalSchema, {
      body: JSON.stringify(request),
      headers,
    });
  }

  /** `POST /goals/{goalId}/replay`: whether the record and the checkpoints agree, and where first they do not. */
  async replay(goalId: string, toStep?: number) {
    return this.post(
      `/goals/${encodeURIComponent(goalId)}/replay`,
      ReplayResultSchema,
      toStep === undefined ? {} : { toStep },
    );
  }

  /**
   * True when a goals API answers at the base URL (the local stack is up). Nothing listening fails at
   * once; the wait is for a stack that is up but slow to answer its first request.
   */
  async isReachable(): Promise<boolean> {
    try {
      const response = await this.fetch(`${this.baseUrl}/goals?limit=1`, {
        signal: AbortSignal.timeout(5000),
      });
      return response.status < 500;
    } catch {
      return false;
    }
  }

  private post<S extends z.core.$ZodType>(path: string, schema: S, body: unknown): Promise<z.output<S>> {
    return this.request(
      "POST",
      path,
      schema,
      body === undefined ? {} : { body: JSON.stringify(body), headers: JSON_HEADERS },
    );
  }

  private async request<S extends z.core.$ZodType>(
    method: string,
    path: string,
    schema: S,
    init: { body?: string; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<z.output<S>> {
    const response = await this.fetch(`${this.baseUrl}${path}`, { method, ...init });
    const text = await response.text();
    const json = parseJson(text);
    if (!response.ok) {
      const error = ApiErrorSchema.safeParse(json);
      throw new GoalsApiError(
        response.status,
        error.success ? error.data.error : { code: `HTTP${response.status}`, message: text.slice(0, 500) },
      );
    }
    const parsed = z.safeParse(schema, json);
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
