import type { Logger } from "@aws-lambda-powertools/logger";
import type { APIGatewayProxyEvent } from "aws-lambda";
import type { StreamLeases } from "../../adapters/dynamodb/limits/dynamodb-stream-leases";
import { GoalLoopsError } from "../../core/goal/errors";
import type { GoalEvent } from "../../core/goal/goal-event";
import { commentFrame, eventFrame, retryFrame } from "../../core/goal/goal-event-stream";
import { isFinal } from "../../core/goal/goal-status";
import type { GoalEventWaiter } from "../../core/ports/goal-event-waiter";
import type { GoalStore } from "../../core/ports/goal-store";
import { DEFAULT_TENANTS_SETTINGS, type TenantsSettings } from "../../core/tenants/tenants-settings";
import { callerIdentity } from "./caller-tenant";
import { errorJson, internalError, knownErrorResponse } from "./http-responses";
import { checkPathParams } from "./path-params";
import { waitForEvents } from "./wait-for-events";

/** Where the stream goes: the Lambda response stream deployed, an HTTP response in tests. */
export interface StreamSink {
  /** Sends the status and headers; called once, before any write. */
  open(statusCode: number, headers: Record<string, string>): void;
  write(text: string): Promise<void>;
  end(): Promise<void>;
  /** Aborted when the client went away (when the platform tells). */
  readonly closed: AbortSignal;
}

export interface EventStreamDeps {
  readonly store: Pick<GoalStore, "getGoal" | "listEvents">;
  readonly waiter: GoalEventWaiter;
  readonly now: () => Date;
  readonly logger: Pick<Logger, "error" | "info">;
  /** Who an IAM caller's tenant is (TENANTS). @default - each IAM caller is its account's tenant */
  readonly tenants?: TenantsSettings;
  /**
   * The longest one stream lasts; the client then reconnects with Last-Event-ID. API Gateway ends
   * a streamed response at 15 minutes. @default 14 minutes
   */
  readonly maxDurationMs?: number;
  /**
   * A comment is sent after this long without an event: API Gateway closes a regional stream idle
   * for 5 minutes, and proxies often sooner. @default 25 seconds
   */
  readonly keepAliveMs?: number;
  /**
   * Bounds the streams open at once (`api.stream.maxOpen`): past it, a new stream answers 429
   * with Retry-After, and the console and the CLI follow the goal by the long poll instead.
   * @default - no bound
   */
  readonly openStreams?: { readonly leases: StreamLeases; readonly maxOpen: number };
}

/** What a client past the open-stream bound is told to wait before it asks for a stream again. */
export const STREAM_RETRY_AFTER_SECONDS = 30;

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  // Proxies (nginx and the like) must not hold frames back.
  "x-accel-buffering": "no",
};
/** How soon a client reconnects after the stream ended (EventSource honours `retry:`). */
const RECONNECT_MS = 1000;
/** Events per read of the log. */
const PAGE = 100;
/** Lambda's own cut-off must not be the one that ends the stream: stop this much before it. */
const LAMBDA_MARGIN_MS = 10_000;

const WHOLE_NUMBER = /^\d{1,15}$/;

class BadStreamRequest extends GoalLoopsError {
  override readonly name = "ValidationError";

  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(`${parameter} ${message}`);
  }
}

/** The seq to resume after: `Last-Event-ID` (a reconnecting EventSource), else `?after=`, else 0. */
function resumeAfter(event: APIGatewayProxyEvent): number {
  const headers = Object.fromEntries(
    Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const lastEventId = headers["last-event-id"];
  const after = lastEventId ?? event.queryStringParameters?.after ?? undefined;
  if (after === undefined || after === "") return 0;
  if (!WHOLE_NUMBER.test(after)) {
    throw new BadStreamRequest(
      lastEventId === undefined ? "after" : "Last-Event-ID",
      "must be a whole number (an event seq)",
    );
  }
  return Number(after);
}

/** The goal id, checked against the shape the system issues before it reaches a key (400 otherwise). */
function goalIdOf(event: APIGatewayProxyEvent): string {
  const { goalId } = checkPathParams({ goalId: event.pathParameters?.goalId ?? "" });
  return goalId ?? "";
}

/**
 * `GET /goals/{goalId}/stream`: the goal's events as Server-Sent Events, from `Last-Event-ID` (or
 * `?after=`) on, as they are committed. The stream ends once a final goal's last event is sent, or
 * after `maxDurationMs`; a client reconnecting to a final goal with nothing new gets 204, which
 * tells an EventSource to stop. Errors before the first frame are the API's JSON errors.
 */
export async function streamGoalEvents(
  deps: EventStreamDeps,
  event: APIGatewayProxyEvent,
  sink: StreamSink,
  remainingMs: () => number,
): Promise<void> {
  const requestId = event.requestContext?.requestId ?? "unknown";
  let goalId: string;
  let after: number;
  let final: boolean;
  try {
    const { tenantId } = callerIdentity(event, deps.tenants ?? DEFAULT_TENANTS_SETTINGS);
    goalId = goalIdOf(event);
    after = resumeAfter(event);
    const found = await deps.store.getGoal(goalId);
    if (found === undefined || found.record.tenantId !== tenantId) {
      return await answer(
        sink,
        errorJson(404, { code: "GoalNotFound", message: `Goal '${goalId}' does not exist` }),
      );
    }
    final = isFinal(found.record.status);
    if (final && found.record.lastEventSeq <= after) {
      sink.open(204, {});
      return await sink.end();
    }
  } catch (error) {
    if (error instanceof BadStreamRequest) {
      return await answer(
        sink,
        errorJson(400, {
          code: "ValidationError",
          message: error.message,
          issues: [{ path: error.parameter, message: error.message }],
        }),
      );
    }
    const known = knownErrorResponse(error);
    if (known) return await answer(sink, known);
    deps.logger.error("event stream failed before it started", { requestId, error });
    return await answer(sink, internalError(requestId));
  }

  const started = deps.now().getTime();
  const endAt = Math.min(
    started + (deps.maxDurationMs ?? 14 * 60_000),
    started + Math.max(0, remainingMs() - LAMBDA_MARGIN_MS),
  );
  // Each open stream holds a Lambda execution for up to 15 minutes: past the bound, none opens.
  const lease = deps.openStreams;
  if (lease !== undefined) {
    let leased: boolean;
    try {
      // The lease lapses a little after the function must end, should it die without releasing it.
      leased = await lease.leases.acquire(requestId, endAt + LAMBDA_MARGIN_MS, started, lease.maxOpen);
    } catch (error) {
      deps.logger.error("event stream lease failed", { requestId, error });
      return await answer(sink, internalError(requestId));
    }
    if (!leased) {
      return await answer(
        sink,
        errorJson(
          429,
          {
            code: "TooManyStreams",
            message: `${lease.maxOpen} event streams are open (api.stream.maxOpen): follow the goal by GET /goals/{goalId}/events?after=N&waitSeconds=20, or try the stream again later`,
          },
          { "retry-after": String(STREAM_RETRY_AFTER_SECONDS) },
        ),
      );
    }
  }
  const keepAliveMs = deps.keepAliveMs ?? 25_000;
  sink.open(200, SSE_HEADERS);
  await sink.write(retryFrame(RECONNECT_MS));
  try {
    while (!sink.closed.aborted && deps.now().getTime() < endAt) {
      const until = new Date(Math.min(endAt, deps.now().getTime() + keepAliveMs));
      const page = await waitForEvents(
        { store: deps.store, waiter: deps.waiter, now: deps.now },
        { goalId, after, limit: PAGE, until, signal: sink.closed },
      );
      for (const item of page.items) await sink.write(eventFrame(item));
      after = page.nextSeq;
      if (page.items.length === 0) await sink.write(commentFrame("keep-alive"));
      if (page.items.length < PAGE && (await endedWith(deps, goalId, page.items, final))) break;
    }
  } catch (error) {
    // Headers are gone: the stream just ends, and the client resumes from its last id.
    deps.logger.error("event stream failed", { requestId, goalId, error });
  }
  await sink.end();
  await lease?.leases.release(requestId).catch((error: unknown) => {
    // Not released: the lease lapses by itself at its end.
    deps.logger.error("event stream lease not released", { requestId, error });
  });
}

/** Whether the goal is final now: looked up only after a `goal.*` event or a quiet spell. */
async function endedWith(
  deps: EventStreamDeps,
  goalId: string,
  sent: readonly GoalEvent[],
  finalBefore: boolean,
): Promise<boolean> {
  if (finalBefore) return true;
  if (sent.length > 0 && !sent.some((item) => item.type.startsWith("goal."))) return false;
  const found = await deps.store.getGoal(goalId);
  return found === undefined || isFinal(found.record.status);
}

async function answer(
  sink: StreamSink,
  response: { statusCode: number; headers?: Record<string, unknown>; body: string },
): Promise<void> {
  const headers = Object.fromEntries(
    Object.entries(response.headers ?? {}).map(([name, value]) => [name, String(value)]),
  );
  sink.open(response.statusCode, headers);
  await sink.write(response.body);
  await sink.end();
}
