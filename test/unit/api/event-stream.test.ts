import { describe, expect, it } from "vitest";
import { SseParser } from "../../../lambdas/core/goal/goal-event-stream";
import { cancel } from "../../../lambdas/core/goal/goal-lifecycle";
import type { GoalEventWaiter } from "../../../lambdas/core/ports/goal-event-waiter";
import { type StreamSink, streamGoalEvents } from "../../../lambdas/handlers/api/event-stream";
import { changeGoal, clock, suiteGoalTable } from "../human/control-support";
import { createGoal } from "../loop/support";
import { apiEvent } from "./api-harness";

/** What a client received: the status, the headers and the body as written, frame by frame. */
function recordingSink() {
  const received = { status: 0, headers: {} as Record<string, string>, body: "", ended: false };
  const sink: StreamSink = {
    open: (statusCode, headers) => {
      received.status = statusCode;
      received.headers = headers;
    },
    write: async (text) => {
      received.body += text;
    },
    end: async () => {
      received.ended = true;
    },
    closed: new AbortController().signal,
  };
  return { received, sink };
}

/** The goal's events were all committed before the stream opened: nothing to wait for. */
const NO_WAIT: GoalEventWaiter = { wait: async () => undefined };
const LOGGER = { error: () => undefined, info: () => undefined };

describe("streamGoalEvents resuming a stream", () => {
  const table = suiteGoalTable();

  /** A cancelled goal (final), so a stream sends what is left and ends. */
  async function endedGoal(): Promise<{ goalId: string; lastSeq: number }> {
    const goal = await createGoal(table);
    const ended = await changeGoal(table, goal.goalId, (record) => cancel(record, "ana", "enough", clock()));
    return { goalId: goal.goalId, lastSeq: ended.lastEventSeq };
  }

  function streamOf(
    goalId: string,
    options: { headers?: Record<string, string>; query?: Record<string, string> },
  ) {
    const { received, sink } = recordingSink();
    const event = {
      ...apiEvent({ method: "GET", path: `/goals/${goalId}/stream`, accountId: "tenant-1", ...options }),
      pathParameters: { goalId },
    };
    const deps = { store: table.adapters.goals, waiter: NO_WAIT, now: () => new Date(), logger: LOGGER };
    return { received, run: () => streamGoalEvents(deps, event, sink, () => 60_000) };
  }

  it("sends only the events after Last-Event-ID, each with its seq as id, then ends for a final goal", async () => {
    // Prepare
    const { goalId, lastSeq } = await endedGoal();
    const stream = streamOf(goalId, { headers: { "Last-Event-ID": "1" } });

    // Act
    await stream.run();

    // Assess
    const frames = new SseParser().push(stream.received.body);
    expect(stream.received.status).toBe(200);
    expect(stream.received.headers["content-type"]).toContain("text/event-stream");
    expect(frames.map((frame) => Number(frame.id))).toEqual(
      Array.from({ length: lastSeq - 1 }, (_, index) => index + 2),
    );
    expect(frames.at(-1)?.event).toBe("goal.cancelled");
    expect(stream.received.ended).toBe(true);
  });

  it("takes Last-Event-ID over ?after=, as a reconnecting EventSource sends it", async () => {
    // Prepare
    const { goalId, lastSeq } = await endedGoal();
    const stream = streamOf(goalId, {
      headers: { "last-event-id": String(lastSeq - 1) },
      query: { after: "0" },
    });

    // Act
    await stream.run();

    // Assess
    expect(new SseParser().push(stream.received.body).map((frame) => Number(frame.id))).toEqual([lastSeq]);
  });

  it("answers 204 to a client that already has a final goal's last event, so it stops reconnecting", async () => {
    // Prepare
    const { goalId, lastSeq } = await endedGoal();
    const stream = streamOf(goalId, { headers: { "Last-Event-ID": String(lastSeq) } });

    // Act
    await stream.run();

    // Assess
    expect(stream.received).toMatchObject({ status: 204, body: "", ended: true });
  });

  it("refuses a Last-Event-ID that is not an event seq with a 400 naming the header", async () => {
    // Prepare
    const { goalId } = await endedGoal();
    const stream = streamOf(goalId, { headers: { "Last-Event-ID": "7;drop" } });

    // Act
    await stream.run();

    // Assess
    expect(stream.received.status).toBe(400);
    expect(JSON.parse(stream.received.body)).toMatchObject({
      error: { code: "ValidationError", issues: [{ path: "Last-Event-ID" }] },
    });
  });
});

describe("streamGoalEvents past the open-stream bound (api.stream.maxOpen)", () => {
  const table = suiteGoalTable();

  /** Leases in memory, as the DynamoDB one keeps them (test/unit/adapters/stream-leases.test.ts). */
  function memoryLeases() {
    const leases = new Map<string, number>();
    return {
      leases,
      acquire: async (id: string, untilMs: number, nowMs: number, maxOpen: number) => {
        const live = [...leases].filter(([, until]) => until > nowMs).length;
        if (live >= maxOpen) return false;
        leases.set(id, untilMs);
        return true;
      },
      release: async (id: string) => {
        leases.delete(id);
      },
    };
  }

  function stream(
    goalId: string,
    requestId: string,
    openStreams: { leases: ReturnType<typeof memoryLeases>; maxOpen: number },
  ) {
    const { received, sink } = recordingSink();
    const event = {
      ...apiEvent({ method: "GET", path: `/goals/${goalId}/stream`, accountId: "tenant-1" }),
      pathParameters: { goalId },
      requestContext: {
        ...apiEvent({ method: "GET", path: "/", accountId: "tenant-1" }).requestContext,
        requestId,
      },
    };
    const deps = {
      store: table.adapters.goals,
      waiter: NO_WAIT,
      now: () => new Date(),
      logger: LOGGER,
      openStreams,
    };
    return { received, run: () => streamGoalEvents(deps, event, sink, () => 60_000) };
  }

  it("answers 429 with Retry-After when the bound is reached, and frees the place when a stream ends", async () => {
    // Prepare: one place, taken by a stream still open
    const goal = await createGoal(table);
    const leases = memoryLeases();
    leases.leases.set("open-elsewhere", Date.now() + 60_000);
    const refused = stream(goal.goalId, "req-2", { leases, maxOpen: 1 });

    // Act
    await refused.run();
    await leases.release("open-elsewhere");
    const ended = await changeGoal(table, goal.goalId, (record) => cancel(record, "ana", "enough", clock()));
    const served = stream(ended.goalId, "req-3", { leases, maxOpen: 1 });
    await served.run();

    // Assess
    expect(refused.received.status).toBe(429);
    expect(refused.received.headers["retry-after"]).toBe("30");
    expect(JSON.parse(refused.received.body)).toMatchObject({ error: { code: "TooManyStreams" } });
    expect(served.received.status).toBe(200);
    expect(leases.leases.size).toBe(0);
  });
});
