import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  GoalLoopsClient,
  InvalidStatusApiError,
  retryDelayMs,
  ServerApiError,
  ThrottledApiError,
} from "../../../lib/client/index";

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
}

type Answer = (req: IncomingMessage, res: ServerResponse, index: number) => void;

/** A server answering the n-th request with `answers[n]` (the last one for the rest). */
async function serve(answers: readonly Answer[]): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const index = seen.length;
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
      (answers[Math.min(index, answers.length - 1)] ?? (() => res.end()))(req, res, index);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Answer =>
  (_req, res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };

const SNAPSHOT_ERROR = { error: { code: "ServiceUnavailable", message: "retry it" } };
const ACCEPTED = { goalId: "g-01jq0000000000000000000000", status: "running", pattern: "react", runId: "r1" };

describe("GoalLoopsClient retries and errors", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  });

  it("retries a 429 and a 503 after their Retry-After, then answers", async () => {
    // Prepare
    const fake = await serve([
      json(429, { error: { code: "Throttled", message: "slow down" } }, { "retry-after": "2" }),
      json(503, SNAPSHOT_ERROR, { "retry-after": "1" }),
      json(200, { items: [] }),
    ]);
    server = fake.server;
    const waits: number[] = [];
    const client = new GoalLoopsClient(fake.url, { sleep: async (ms) => void waits.push(ms) });

    // Act
    const answer = await client.listApprovals();

    // Assess
    expect(answer).toEqual([]);
    expect(waits).toEqual([2000, 1000]);
    expect(fake.seen).toHaveLength(3);
  });

  it("gives up after maxAttempts with the error's own class", async () => {
    // Prepare
    const fake = await serve([json(429, { error: { code: "Throttled", message: "slow down" } })]);
    server = fake.server;
    const client = new GoalLoopsClient(fake.url, { retry: { maxAttempts: 2 }, sleep: async () => {} });

    // Act
    const error = await client.listGoals().catch((caught: unknown) => caught);

    // Assess
    expect(error).toBeInstanceOf(ThrottledApiError);
    expect(fake.seen).toHaveLength(2);
  });

  it("never retries a POST that may have acted (500 on resume), and types a 409", async () => {
    // Prepare
    const fake = await serve([
      json(500, { error: { code: "InternalError", message: "internal error", requestId: "q-1" } }),
      json(409, {
        error: { code: "InvalidStatus", message: "goal is running; resume needs paused", status: "running" },
      }),
    ]);
    server = fake.server;
    const client = new GoalLoopsClient(fake.url, { sleep: async () => {} });

    // Act
    const crashed = await client.resume("g-01jq0000000000000000000000").catch((caught: unknown) => caught);
    const refused = await client.resume("g-01jq0000000000000000000000").catch((caught: unknown) => caught);

    // Assess
    expect(crashed).toBeInstanceOf(ServerApiError);
    expect(refused).toBeInstanceOf(InvalidStatusApiError);
    expect(refused).toMatchObject({ status: 409, code: "InvalidStatus", body: { status: "running" } });
    expect(fake.seen).toHaveLength(2);
  });

  it("retries POST /goals after a 502 with the same Idempotency-Key it generated", async () => {
    // Prepare
    const fake = await serve([json(502, { message: "Internal server error" }), json(202, ACCEPTED)]);
    server = fake.server;
    const client = new GoalLoopsClient(fake.url, { sleep: async () => {} });

    // Act
    const accepted = await client.submitGoal({ objective: "x", successChecks: [] });

    // Assess
    expect(accepted).toEqual(ACCEPTED);
    const keys = fake.seen.map((request) => request.headers["idempotency-key"]);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
  });

  it("sends a bearer token when given one", async () => {
    // Prepare
    const fake = await serve([json(200, { items: [] })]);
    server = fake.server;
    const client = new GoalLoopsClient(fake.url, { auth: { kind: "bearer", token: async () => "t0ken" } });

    // Act
    await client.listApprovals();

    // Assess
    expect(fake.seen[0]?.headers.authorization).toBe("Bearer t0ken");
  });

  it("waits with full jitter below an exponential ceiling when there is no Retry-After", () => {
    expect(retryDelayMs({ baseDelayMs: 100 }, 3, null, Date.now, () => 0.999)).toBe(399);
    expect(retryDelayMs({ baseDelayMs: 100, maxDelayMs: 150 }, 3, null, Date.now, () => 0.999)).toBe(149);
    expect(
      retryDelayMs({}, 1, "Wed, 21 Oct 2015 07:28:10 GMT", () => Date.parse("2015-10-21T07:28:00Z")),
    ).toBe(10_000);
  });
});

describe("GoalLoopsClient.watch", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  });

  const event = (seq: number) =>
    `id: ${seq}\nevent: step\ndata: ${JSON.stringify({ goalId: "g-1", seq, type: "step", at: "2026-12-07T00:00:00.000Z" })}\n\n`;

  it("reopens a stream the server ended from the last id, and ends on 204", async () => {
    // Prepare: the first stream sends 1 and 2 and ends; the second sends 3; then the goal is final.
    const stream =
      (seqs: number[]): Answer =>
      (_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(seqs.map(event).join(""));
      };
    const fake = await serve([
      stream([1, 2]),
      stream([2, 3]),
      (_req, res) => {
        res.writeHead(204);
        res.end();
      },
    ]);
    server = fake.server;
    const client = new GoalLoopsClient(fake.url);

    // Act
    const seqs: number[] = [];
    for await (const item of client.watch("g-1")) seqs.push(item.seq);

    // Assess
    expect(seqs).toEqual([1, 2, 3]);
    expect(fake.seen.map((request) => request.headers["last-event-id"])).toEqual(["0", "2", "3"]);
  });
});
