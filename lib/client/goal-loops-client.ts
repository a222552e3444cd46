import type * as z from "zod";
import type { ForkRequest } from "../../lambdas/core/fork/fork-request";
import { type GoalEvent, GoalEventSchema } from "../../lambdas/core/goal/goal-event";
import { SseParser } from "../../lambdas/core/goal/goal-event-stream";
import type { GoalSnapshot, GoalStatus } from "../../lambdas/core/goal/goal-record";
import type { GoalSpecSchema } from "../../lambdas/core/goal/goal-spec";
import { isFinal } from "../../lambdas/core/goal/goal-status";
import type { LimitsPatch } from "../../lambdas/core/goal/limits";
import type { RevisionRequest } from "../../lambdas/core/goal/revisions";
import type { APPROVAL_STATUSES } from "../../lambdas/core/ports/goal-store";
import type { TenantLimitsPatch } from "../../lambdas/core/tenants/tenant-limits";
import { OPERATIONS, type Operation, type OperationId } from "../../lambdas/handlers/api/contract/operations";
import { ApiErrorSchema, type EventPage } from "../../lambdas/handlers/api/contract/response-schemas";
import { apiErrorFor, type GoalLoopsApiError, UnexpectedAnswerError } from "./client-errors";
import { isRetryable, type RetryPolicy, retryDelayMs } from "./retry-policy";
import { type ApiFetch, signedFetch } from "./sigv4-fetch";

/** `/goals/{goalId}/runs/{runId}` → "goalId" | "runId". */
type PathParams<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathParams<Rest>
  : never;
type Op<K extends OperationId> = (typeof OPERATIONS)[K];
type SuccessSchemas<O> = O extends { responses: infer R }
  ? { [S in keyof R]: R[S] extends { schema: infer Z extends z.core.$ZodType } ? Z : never }[keyof R]
  : never;

/** What one operation takes: its path parameters, query, body, and an Idempotency-Key where it has one. */
export type OperationInput<K extends OperationId> = ([PathParams<Op<K>["path"]>] extends [never]
  ? { readonly params?: undefined }
  : { readonly params: Readonly<Record<PathParams<Op<K>["path"]>, string>> }) &
  (Op<K> extends { query: infer Q extends z.core.$ZodObject }
    ? { readonly query?: { readonly [N in keyof z.input<Q>]?: string | number } }
    : { readonly query?: undefined }) &
  (Op<K> extends { body: { schema: infer B extends z.core.$ZodType; required: infer R } }
    ? R extends true
      ? { readonly body: z.input<B> }
      : { readonly body?: z.input<B> }
    : { readonly body?: undefined }) & {
    readonly idempotencyKey?: string;
    readonly signal?: AbortSignal;
  };

/** What one operation answers on success (the union of its 2xx schemas' outputs). */
export type OperationAnswer<K extends OperationId> = z.output<SuccessSchemas<Op<K>>>;

/** A GoalSpec as a caller writes it (defaults may be left out). */
export type GoalSpecInput = z.input<typeof GoalSpecSchema>;

export type ApprovalListStatus = (typeof APPROVAL_STATUSES)[number];

export interface GoalLoopsClientOptions {
  /**
   * How requests are authorized. `sigv4` signs with the AWS SDK's credential chain (a profile if
   * named) for a deployed stack; `bearer` sends a token (a JWT from the stack's OIDC issuer);
   * `none` sends nothing. @default sigv4 for a non-loopback URL, none for the local stack
   */
  readonly auth?:
    | { readonly kind: "sigv4"; readonly profile?: string; readonly region?: string }
    | { readonly kind: "bearer"; readonly token: string | (() => Promise<string>) }
    | { readonly kind: "none" };
  /** Sends the requests instead of global fetch (a test double, a proxy); replaces `auth`'s signing. */
  readonly fetch?: ApiFetch;
  readonly retry?: RetryPolicy;
  /** Waits between retries. @default setTimeout */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const JSON_HEADERS: Readonly<Record<string, string>> = { "content-type": "application/json" };
/** How often `watch` reopens a stream that failed before it gives up. */
const MAX_STREAM_FAILURES = 5;

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/**
 * The typed client of the goals API. Every operation of the contract is `call(operationId, input)`,
 * typed from its zod schemas, and the common ones have methods of their own. Answers are parsed
 * with the operations' schemas; errors are GoalLoopsApiError subclasses carrying the API's code.
 *
 * ```ts
 * const client = new GoalLoopsClient("https://abc.execute-api.eu-west-1.amazonaws.com/v1", { auth: { kind: "sigv4" } });
 * const { goalId } = await client.startGoal(spec);
 * for await (const event of client.watch(goalId)) console.log(event.type);
 * ```
 */
export class GoalLoopsClient {
  /** The API's URL without a trailing slash (a deployed stage URL ends with one). */
  readonly baseUrl: string;
  private readonly fetch: ApiFetch;
  private readonly retryPolicy: RetryPolicy;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(baseUrl: string, options: GoalLoopsClientOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.fetch = options.fetch ?? fetchFor(this.baseUrl, options.auth);
    this.retryPolicy = options.retry ?? {};
    this.sleep = options.sleep ?? defaultSleep;
  }

  /** Any operation of the contract, by id. */
  async call<K extends OperationId>(operationId: K, input: OperationInput<K>): Promise<OperationAnswer<K>> {
    const operation: Operation = OPERATIONS[operationId];
    const url = this.urlOf(operation, input);
    const headers: Record<string, string> = {};
    let body: string | undefined;
    if (input.body !== undefined) {
      Object.assign(headers, JSON_HEADERS);
      body = JSON.stringify(input.body);
    }
    // A retried POST /goals or fork must not make a second goal: the key makes the retry a replay.
    const key = input.idempotencyKey ?? (operation.idempotent ? globalThis.crypto.randomUUID() : undefined);
    if (key !== undefined) headers["idempotency-key"] = key;
    const response = await this.send(
      operation,
      url,
      { method: operation.method, headers, body },
      key !== undefined,
      input.signal,
    );
    const text = await response.text();
    const described = operation.responses[response.status]?.schema;
    if (described === undefined) {
      throw new UnexpectedAnswerError(
        `${operation.method} ${operation.path}: status ${response.status} is not described`,
      );
    }
    const parsed = described.safeParse(parseJson(text));
    if (!parsed.success) {
      throw new UnexpectedAnswerError(
        `Unexpected answer from ${operation.method} ${operation.path}: ${parsed.error.message}`,
        {
          cause: parsed.error,
        },
      );
    }
    return parsed.data as OperationAnswer<K>;
  }

  // The goals.

  /** `POST /goals`: stores the goal and starts its first run; answers at once with its id. */
  startGoal(spec: GoalSpecInput, options: { idempotencyKey?: string } = {}) {
    return this.call("createGoal", { body: spec, ...options });
  }

  /** `POST /goals` with a spec read from a file or a user: the API validates it (a 400 names each bad field). */
  submitGoal(spec: unknown, options: { idempotencyKey?: string } = {}) {
    return this.startGoal(spec as GoalSpecInput, options);
  }

  getGoal(goalId: string): Promise<GoalSnapshot> {
    return this.call("getGoal", { params: { goalId } });
  }

  listGoals(query: { status?: GoalStatus; limit?: number; cursor?: string } = {}) {
    return this.call("listGoals", { query });
  }

  listChildren(goalId: string) {
    return this.call("listChildren", { params: { goalId } });
  }

  getDetails(goalId: string) {
    return this.call("getDetails", { params: { goalId } });
  }

  listRuns(goalId: string) {
    return this.call("listRuns", { params: { goalId } });
  }

  runHistory(goalId: string, runId: string, nextToken?: string) {
    return this.call("getRunHistory", {
      params: { goalId, runId },
      query: nextToken === undefined ? {} : { nextToken },
    });
  }

  /**
   * Events after `after` (a page); pass `nextSeq` as `after` next. Typed by name (EventPage): the
   * event's open catch-all written out in the declarations fails a consumer's type check.
   */
  listEvents(goalId: string, after = 0): Promise<EventPage> {
    return this.call("listEvents", { params: { goalId }, query: { after } });
  }

  /** The long poll: answers as soon as an event after `after` exists, or empty after `waitSeconds` (≤ 20). */
  waitForEvents(
    goalId: string,
    after: number,
    waitSeconds: number,
    signal?: AbortSignal,
  ): Promise<EventPage> {
    return this.call("listEvents", {
      params: { goalId },
      query: { after, waitSeconds },
      ...(signal ? { signal } : {}),
    });
  }

  // Steering.

  revise(goalId: string, revision: RevisionRequest) {
    return this.call("reviseGoal", { params: { goalId }, body: revision });
  }

  /** The `/goal` directive: a snapshot for `status`, a queued revision for the others. */
  directive(goalId: string, text: string) {
    return this.call("postDirective", { params: { goalId }, body: { text } });
  }

  pause(goalId: string, reason?: string) {
    return this.call("pauseGoal", {
      params: { goalId },
      ...(reason === undefined ? {} : { body: { reason } }),
    });
  }

  resume(goalId: string) {
    return this.call("resumeGoal", { params: { goalId } });
  }

  retry(goalId: string) {
    return this.call("retryGoal", { params: { goalId } });
  }

  setLimits(goalId: string, patch: LimitsPatch) {
    return this.call("setLimits", { params: { goalId }, body: patch });
  }

  cancel(goalId: string, reason?: string) {
    return this.call("cancelGoal", {
      params: { goalId },
      ...(reason === undefined ? {} : { body: { reason } }),
    });
  }

  // Approvals.

  async listApprovals(status: ApprovalListStatus = "pending") {
    return (await this.call("listApprovals", { query: { status } })).items;
  }

  /** Decides; ApprovalClosedApiError when someone decided first (409) or it expired (410). */
  async decideApproval(approvalId: string, decision: "approve" | "reject", comment?: string) {
    const body = comment === undefined ? { decision } : { decision, comment };
    return (await this.call("decideApproval", { params: { approvalId }, body })).approval;
  }

  // History.

  steps(goalId: string, page: { after?: number; limit?: number } = {}) {
    return this.call("listSteps", { params: { goalId }, query: page });
  }

  fork(goalId: string, request: ForkRequest, options: { idempotencyKey?: string } = {}) {
    return this.call("forkGoal", { params: { goalId }, body: request, ...options });
  }

  replay(goalId: string, toStep?: number) {
    return this.call("replayGoal", { params: { goalId }, body: toStep === undefined ? {} : { toStep } });
  }

  // Tenants.

  /** `GET /tenants/me`: the caller's tenant, how it signed in, its limits now and what it uses of them. */
  myTenant() {
    return this.call("getMyTenant", {});
  }

  /**
   * `POST /tenants/{tenantId}/limits`, an operator's call (IAM only, a principal tenants.admins
   * names): a number sets a limit, `null` lifts it. Answers the limits now in effect.
   */
  setTenantLimits(tenantId: string, patch: TenantLimitsPatch) {
    return this.call("setTenantLimits", { params: { tenantId }, body: patch });
  }

  /** `GET /openapi.json`: the document this client is typed from. */
  openApiDocument() {
    return this.call("getOpenApiDocument", {});
  }

  /**
   * The goal's events after `after`, as the stream (`GET /goals/{goalId}/stream`, Server-Sent
   * Events) delivers them. A stream the server ends (its 15-minute cap, a network break) is reopened
   * from the last id seen; the iterator ends when the server answers 204 (the goal is final and
   * every event was sent) or `signal` aborts. A server without the stream route (404/405), or one
   * with every stream it allows open already (429), is followed by the long poll instead.
   */
  async *watch(
    goalId: string,
    options: { after?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<GoalEvent> {
    const { signal } = options;
    let after = options.after ?? 0;
    const url = `${this.baseUrl}/goals/${encodeURIComponent(goalId)}/stream`;
    let failures = 0;
    while (!signal?.aborted) {
      let response: Response;
      try {
        response = await this.fetch(url, {
          headers: { accept: "text/event-stream", "last-event-id": String(after) },
          ...(signal ? { signal } : {}),
        });
      } catch (error) {
        if (signal?.aborted) return;
        if (++failures > MAX_STREAM_FAILURES) throw error;
        await this.sleep(retryDelayMs(this.retryPolicy, failures, null), signal);
        continue;
      }
      if (response.status === 204) return;
      if (!response.ok || response.body === null) {
        const error = errorOf(response.status, await response.text());
        const noStream = response.status === 405 || response.status === 429 || error.code === "RouteNotFound";
        if (!noStream || error.code === "GoalNotFound") throw error;
        yield* this.pollEvents(goalId, after, signal);
        return;
      }
      failures = 0;
      const parser = new SseParser();
      const decoder = new TextDecoder();
      // A reader, not `for await` over the body: browsers without ReadableStream iteration (Safari) run this too.
      const reader = response.body.getReader();
      try {
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
          for (const frame of parser.push(decoder.decode(chunk.value, { stream: true }))) {
            const event = GoalEventSchema.safeParse(parseJson(frame.data));
            if (!event.success || event.data.seq <= after) continue;
            after = event.data.seq;
            yield event.data;
          }
        }
      } catch (error) {
        if (signal?.aborted) return;
        // The connection broke mid-stream: reopen from the last event seen.
        if (++failures > MAX_STREAM_FAILURES) throw error;
      } finally {
        // A caller that stops iterating early closes the connection.
        reader.cancel().catch(() => undefined);
      }
    }
  }

  /** The long poll as a stream, for a server without the stream route. Ends when the goal is final. */
  private async *pollEvents(goalId: string, from: number, signal?: AbortSignal): AsyncGenerator<GoalEvent> {
    let after = from;
    while (!signal?.aborted) {
      const page = await this.waitForEvents(goalId, after, 20, signal);
      for (const event of page.items) yield event;
      after = page.nextSeq;
      if (page.items.length === 0 && isFinal((await this.getGoal(goalId)).status)) return;
    }
  }

  /**
   * True when a goals API answers at the base URL. Nothing listening fails at once; the wait is for
   * a stack that is up but slow to answer its first request.
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

  private urlOf(
    operation: Operation,
    input: { params?: Readonly<Record<string, string>>; query?: object },
  ): string {
    const path = operation.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
      const value = input.params?.[name];
      if (value === undefined)
        throw new TypeError(`${operation.operationId}: path parameter '${name}' is missing`);
      return encodeURIComponent(value);
    });
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(input.query ?? {})) {
      if (value !== undefined) query.set(name, String(value));
    }
    return `${this.baseUrl}${path}${query.size === 0 ? "" : `?${query}`}`;
  }

  /** Sends, retrying 429/5xx (and connection failures) as the retry policy allows; a final error answer throws. */
  private async send(
    operation: Operation,
    url: string,
    init: { method: string; headers: Record<string, string>; body: string | undefined },
    idempotent: boolean,
    signal: AbortSignal | undefined,
  ): Promise<Response> {
    const maxAttempts = Math.max(1, this.retryPolicy.maxAttempts ?? 4);
    for (let attempt = 1; ; attempt += 1) {
      let response: Response;
      try {
        response = await this.fetch(url, {
          method: init.method,
          headers: init.headers,
          ...(init.body === undefined ? {} : { body: init.body }),
          ...(signal ? { signal } : {}),
        });
      } catch (error) {
        // No answer: a GET, or a request with a key, cannot act twice.
        if (signal?.aborted || attempt >= maxAttempts || !(operation.method === "GET" || idempotent))
          throw error;
        await this.sleep(retryDelayMs(this.retryPolicy, attempt, null), signal);
        continue;
      }
      if (response.ok) return response;
      if (attempt < maxAttempts && isRetryable(response.status, operation.method, idempotent)) {
        await response.body?.cancel();
        await this.sleep(
          retryDelayMs(this.retryPolicy, attempt, response.headers.get("retry-after")),
          signal,
        );
        continue;
      }
      throw errorOf(response.status, await response.text());
    }
  }
}

function fetchFor(baseUrl: string, auth: GoalLoopsClientOptions["auth"]): ApiFetch {
  const kind = auth?.kind ?? (isLoopbackUrl(baseUrl) ? "none" : "sigv4");
  if (auth?.kind === "bearer") {
    const { token } = auth;
    return async (url, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set("authorization", `Bearer ${typeof token === "string" ? token : await token()}`);
      return fetch(url, { ...init, headers });
    };
  }
  if (kind === "sigv4") {
    const options: { profile?: string; region?: string } = auth?.kind === "sigv4" ? auth : {};
    return signedFetch({
      apiUrl: baseUrl,
      ...(options.profile === undefined ? {} : { profile: options.profile }),
      ...(options.region === undefined ? {} : { region: options.region }),
    });
  }
  return (url, init) => fetch(url, init);
}

function isLoopbackUrl(url: string): boolean {
  try {
    const { hostname } = new URL(url);
    return hostname === "localhost" || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
  } catch {
    return false;
  }
}

function errorOf(status: number, text: string): GoalLoopsApiError {
  const parsed = ApiErrorSchema.safeParse(parseJson(text));
  if (parsed.success) return apiErrorFor(status, parsed.data.error);
  // Not the API's shape (a proxy's page, API Gateway's 502 `{message}`): keep what it said.
  return apiErrorFor(status, { code: `HTTP${status}`, message: text.slice(0, 500) });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
