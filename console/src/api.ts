import type { GoalEvent } from "../../lambdas/core/goal/goal-event";
import { SseParser } from "../../lambdas/core/goal/goal-event-stream";
import type { GoalSnapshot } from "../../lambdas/core/goal/goal-record";
import type { ApprovalView, GoalDetails } from "../../lambdas/handlers/api/contract/response-schemas";
import { authorizedFetch } from "./auth";

export type { ApprovalView, GoalDetails, GoalEvent, GoalSnapshot };

/** The API's error shape: `{error: {code, message, issues?}}`, with the HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: readonly { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

/**
 * Every call goes to the page's own origin: the local stack serves the console beside its API, and
 * `goal-loops console` proxies the API (signing it). No AWS credential is ever in the page; a
 * signed-in person's bearer token (auth.ts) goes with each call.
 */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await authorizedFetch(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const error = (
      json as { error?: { code?: string; message?: string; issues?: { path: string; message: string }[] } }
    )?.error;
    throw new ApiError(
      response.status,
      error?.code ?? `HTTP${response.status}`,
      error?.message ?? text,
      error?.issues,
    );
  }
  return json as T;
}

export interface RunItem {
  readonly runId: string;
  readonly current: boolean;
  readonly execution: {
    readonly executionArn: string;
    readonly status: string;
    readonly startDate: string;
    readonly stopDate?: string;
    readonly error?: string;
    readonly cause?: string;
  } | null;
}

export interface HistoryEvent {
  readonly id: number;
  readonly timestamp: string;
  readonly type: string;
  readonly details?: Record<string, unknown>;
}

/**
 * Follows a goal's event stream (`GET /goals/{id}/stream`, Server-Sent Events) from `after` on:
 * `onEvent` gets each event as it is committed. Reconnects from the last id when the stream ends;
 * stops on 204 (final goal, all sent) or when the returned function is called. When the stack has
 * every stream it allows open (429), it follows the goal by the long poll instead.
 */
/**
 * The long poll (`GET /goals/{id}/events?after=N&waitSeconds=20`) until the goal is final and every
 * event was seen, or `signal` aborts.
 */
async function pollEvents(
  goalId: string,
  last: () => number,
  onEvent: (event: GoalEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  const path = `/goals/${encodeURIComponent(goalId)}`;
  while (!signal.aborted) {
    try {
      const response = await authorizedFetch(`${path}/events?after=${last()}&waitSeconds=20`, { signal });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const page = (await response.json()) as { items: GoalEvent[] };
      for (const event of page.items) if (event.seq > last()) onEvent(event);
      if (page.items.length > 0) continue;
      const goal = (await (await authorizedFetch(path, { signal })).json()) as {
        status: string;
        lastEventId: number;
      };
      if (FINAL_STATUSES.includes(goal.status) && goal.lastEventId <= last()) return;
    } catch {
      if (signal.aborted) return;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/** The statuses after which a goal's events end. */
const FINAL_STATUSES = ["completed", "cancelled", "terminated"];

export function followEvents(goalId: string, after: number, onEvent: (event: GoalEvent) => void): () => void {
  const stop = new AbortController();
  let last = after;
  void (async () => {
    while (!stop.signal.aborted) {
      try {
        const response = await authorizedFetch(`/goals/${encodeURIComponent(goalId)}/stream`, {
          headers: { accept: "text/event-stream", "last-event-id": String(last) },
          signal: stop.signal,
        });
        if (response.status === 429) {
          await pollEvents(
            goalId,
            () => last,
            (event) => {
              last = event.seq;
              onEvent(event);
            },
            stop.signal,
          );
          return;
        }
        if (response.status === 204 || !response.ok || response.body === null) return;
        const parser = new SseParser();
        const decoder = new TextDecoder();
        const reader = response.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          for (const frame of parser.push(decoder.decode(value, { stream: true }))) {
            const event = JSON.parse(frame.data) as GoalEvent;
            if (event.seq <= last) continue;
            last = event.seq;
            onEvent(event);
          }
        }
      } catch {
        if (stop.signal.aborted) return;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  })();
  return () => stop.abort();
}
