import { createHmac } from "node:crypto";
import http from "node:http";
import { DynamoDBDocumentClient, paginateScan } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PARTITION_PREFIXES } from "../../lambdas/adapters/dynamodb/table-design";
import { BREAK_GUARD_VARIABLE } from "../../lib/local/api/api-server";
import { localDynamoClient } from "../../lib/local/storage/dynamo";
import type { LocalSecrets } from "../../lib/local/storage/local-secrets";
import {
  badRequests,
  bind,
  type FuzzAnswer,
  type FuzzFixture,
  type FuzzRequest,
  fuzzApi,
  type RouteTemplate,
} from "../support/bad-requests";
import { gatedNotifyGoal } from "./gated-notify-goal";
import { type E2eStack, followGoal, startE2eStack } from "./local-stack-harness";

const BOOKKEEPING = [PARTITION_PREFIXES.slackRequest, PARTITION_PREFIXES.streams];

const SECRETS: LocalSecrets = {
  slackSigningSecret: "fuzz-e2e-slack-signing-secret-0123456789",
  slackBotToken: "xoxb-fuzz-e2e-bot-token",
  emailLinkSecret: "fuzz-e2e-email-link-secret-0123456789abcdef0123",
};
/** The Slack approver of the end-to-end configuration. */
const SLACK_APPROVER = "U123ABC";
const SEED = 29;

/** A goal whose model calls `notify` (irreversible, not pre-authorized): it waits for an approval. */
const GATED_NOTIFY_GOAL = gatedNotifyGoal({
  objective: "Tell ops that release 4.0 is out",
  fixture: "fuzz-notify",
});

/** A Slack body for the request, made unique by `nonce` (the door refuses a replayed signature). */
function slackBody(request: FuzzRequest, fixture: FuzzFixture, nonce: number): string {
  const slack = request.slack;
  if (slack === undefined) return request.body ?? "";
  if (slack.kind === "command") {
    return new URLSearchParams({
      command: "/goal",
      text: `${fixture.goalId} redirect announce it elsewhere`,
      user_id: SLACK_APPROVER,
      response_url: slack.responseUrl,
      trigger_id: String(nonce),
    }).toString();
  }
  const payload = {
    type: "block_actions",
    user: { id: SLACK_APPROVER },
    actions: [{ action_id: "approve", value: fixture.approvalId }],
    response_url: slack.responseUrl,
    trigger_id: String(nonce),
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** Slack's v0 signature as Slack documents it, with the current time (the door allows five minutes). */
function slackHeaders(body: string): [string, string][] {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac("sha256", SECRETS.slackSigningSecret ?? "")
    .update(`v0:${timestamp}:${body}`)
    .digest("hex");
  return [
    ["content-type", "application/x-www-form-urlencoded"],
    ["x-slack-request-timestamp", timestamp],
    ["x-slack-signature", `v0=${signature}`],
  ];
}

/**
 * One request over HTTP exactly as given: node:http, not fetch, because fetch drops a header named
 * `__proto__` and normalises paths; the path's bytes go out as they are.
 */
function sendOverHttp(
  apiUrl: string,
  request: { method: string; path: string; headers: readonly (readonly [string, string])[]; body?: string },
): Promise<FuzzAnswer> {
  const url = new URL(apiUrl);
  return new Promise((resolve, reject) => {
    const outgoing = http.request({
      host: url.hostname,
      port: url.port,
      method: request.method,
      path: request.path,
      agent: false,
    });
    for (const [name, value] of request.headers) outgoing.setHeader(name, value);
    // Node sends a GET's body neither chunked nor with a length unless told: say how long it is.
    if (request.body !== undefined) outgoing.setHeader("content-length", Buffer.byteLength(request.body));
    outgoing.on("error", reject);
    outgoing.on("response", (incoming) => {
      const headers = Object.fromEntries(
        Object.entries(incoming.headers).map(([name, value]) => [name, String(value)]),
      );
      // An event stream that opened stays open while the goal lives: its status and headers are the answer.
      if (incoming.statusCode === 200 && headers["content-type"]?.startsWith("text/event-stream")) {
        incoming.destroy();
        return resolve({ status: 200, headers, body: "" });
      }
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("error", reject);
      incoming.on("end", () => {
        resolve({ status: incoming.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString("utf8") });
      });
    });
    outgoing.end(request.body);
  });
}

describe("the local stack's API under generated bad input (over HTTP)", () => {
  let e2e: E2eStack;
  let documents: DynamoDBDocumentClient;
  let tableName: string;
  let fixture: FuzzFixture;
  let routes: RouteTemplate[];
  let sent = 0;

  beforeAll(async () => {
    e2e = await startE2eStack({ secrets: SECRETS, e2eConfig: true });
    e2e.writeFixture("fuzz-notify", {
      reason: [{ toolUse: { name: "notify", input: { channel: "ops", message: "release 4.0 is out" } } }],
    });
    documents = DynamoDBDocumentClient.from(localDynamoClient(e2e.stack.endpoints.dynamodb));
    const table = e2e.stack.model.functions
      .map((fn) => fn.environment.GOAL_TABLE_NAME)
      .find((name) => name !== undefined);
    if (table === undefined) throw new Error("no function of the stack names the goal table");
    tableName = table;
    // The routes as the template declares them; ANY methods only carry other methods to the handler.
    routes = e2e.stack.model.apiRoutes
      .filter((route) => route.method !== "ANY")
      .map((route) => ({ method: route.method, path: route.resourcePath }));

    // A goal that waits on a pending approval: the noise must leave both as they are.
    const accepted = await e2e.client.submitGoal(GATED_NOTIFY_GOAL);
    const { final } = await followGoal(e2e.client, accepted.goalId);
    expect(final).toMatchObject({ status: "waiting", waitingFor: { kind: "approval" } });
    fixture = { goalId: accepted.goalId, approvalId: final.waitingFor?.approvalId ?? "" };
  });

  afterAll(async () => {
    delete process.env[BREAK_GUARD_VARIABLE];
    documents?.destroy();
    await e2e?.stop();
  });

  /**
   * Every item of the goal table but the bookkeeping a request may rightly touch: the Slack replay
   * guard (it remembers refused signatures too, by design) and the open streams' leases (a stream
   * that answers 200 takes a lease and gives it back).
   */
  async function stored(): Promise<string> {
    const items: Record<string, unknown>[] = [];
    for await (const page of paginateScan(
      { client: documents },
      { TableName: tableName, ConsistentRead: true },
    )) {
      items.push(
        ...(page.Items ?? []).filter(
          (item) => !BOOKKEEPING.some((prefix) => String(item.pk).startsWith(prefix)),
        ),
      );
    }
    return JSON.stringify(items.map((item) => JSON.stringify(item)).sort());
  }

  async function send(request: FuzzRequest): Promise<FuzzAnswer> {
    sent += 1;
    const query =
      request.query.length === 0
        ? ""
        : `?${new URLSearchParams(request.query.map(([name, value]): [string, string] => [name, value])).toString()}`;
    const body = request.slack ? slackBody(request, fixture, sent) : bind(request.body, fixture);
    return sendOverHttp(e2e.stack.apiUrl, {
      method: request.method,
      path: `${bind(request.path, fixture)}${query}`,
      headers: [...request.headers, ...(request.slack ? slackHeaders(body ?? "") : [])],
      ...(body === undefined ? {} : { body }),
    });
  }

  /** The answer's JSON body. */
  function jsonOf(answer: FuzzAnswer): Record<string, unknown> {
    return JSON.parse(answer.body) as Record<string, unknown>;
  }

  describe("the requests the issue listed, each answered with its family's 4xx", () => {
    const long = (prefix: string, length: number) => `${prefix}${"0".repeat(length - prefix.length)}`;
    const deepSpec = (levels: number) =>
      JSON.stringify({
        ...GATED_NOTIFY_GOAL,
        successChecks: [
          {
            id: "deep",
            description: "d",
            verify: { kind: "tool_result", tool: "notify", expect: { equals: "@deep" } },
          },
        ],
      }).replace('"@deep"', `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`);

    it.each([
      ["GET", "/email/approvals/%"],
      ["GET", "/email/approvals/%ZZ"],
      ["GET", "/email/approvals/%E0%A4%A"],
      ["POST", "/email/approvals/%"],
      ["GET", "/goals/%"],
      ["GET", "/goals/%ZZ/events"],
      ["POST", "/goals/%E0%A4%A/revisions"],
      ["POST", "/approvals/%"],
    ])("1. a bad percent escape: %s %s is a 400 naming the segment", async (method, path) => {
      // Act
      const answer = await sendOverHttp(e2e.stack.apiUrl, { method, path, headers: [] });

      // Assess
      expect(answer.status).toBe(400);
      expect(jsonOf(answer).error).toMatchObject({
        code: "ValidationError",
        message: expect.stringContaining(path.slice(path.indexOf("%")).split("/")[0] ?? "%"),
      });
    });

    it.each([
      ["a query", "/goals?__proto__=", []],
      ["a query", "/goals?constructor=", []],
      ["a query", "/goals?toString=", []],
      ["a header", "/goals", [["__proto__", "x"]]],
      ["a header", "/goals", [["constructor", "x"]]],
      ["a header", "/goals", [["hasOwnProperty", "x"]]],
    ] as const)("1. a prototype name in %s (%s %j) is just a name", async (_where, path, headers) => {
      // Act
      const answer = await sendOverHttp(e2e.stack.apiUrl, { method: "GET", path, headers });

      // Assess
      expect(answer.status).toBe(200);
      expect(jsonOf(answer)).toMatchObject({ items: expect.any(Array) });
    });

    it.each([
      ["GET /goals/<2,044 characters>", "GET", `/goals/${long("g-", 2044)}`, "goalId"],
      ["GET /goals/<2,044 characters>/events", "GET", `/goals/${long("g-", 2044)}/events`, "goalId"],
      ["POST /goals/<2,044 characters>/revisions", "POST", `/goals/${long("g-", 2044)}/revisions`, "goalId"],
      ["POST /approvals/<2,040 characters>", "POST", `/approvals/${long("ap-", 2040)}`, "approvalId"],
    ])("2. an overlong id: %s is a 400 naming the parameter", async (_name, method, path, parameter) => {
      // Act
      const answer = await sendOverHttp(e2e.stack.apiUrl, {
        method,
        path,
        headers: [["content-type", "application/json"]],
        body: JSON.stringify({ type: "add_constraint", content: "x", decision: "approve" }),
      });

      // Assess
      expect(answer.status).toBe(400);
      expect(jsonOf(answer).error).toMatchObject({ code: "ValidationError", issues: [{ path: parameter }] });
    });

    it("2. an overlong id through Slack is a refusal, never 'try again'", async () => {
      // Prepare
      const command = new URLSearchParams({
        command: "/goal",
        text: `${long("g-", 2044)} status`,
        user_id: SLACK_APPROVER,
        response_url: "https://hooks.slack.com/commands/T1/1/abc",
      }).toString();
      const click = new URLSearchParams({
        payload: JSON.stringify({
          type: "block_actions",
          user: { id: SLACK_APPROVER },
          actions: [{ action_id: "approve", value: long("ap-", 2040) }],
        }),
      }).toString();

      // Act
      const commanded = await sendOverHttp(e2e.stack.apiUrl, {
        method: "POST",
        path: "/slack/commands",
        headers: slackHeaders(command),
        body: command,
      });
      const clicked = await sendOverHttp(e2e.stack.apiUrl, {
        method: "POST",
        path: "/slack/interactions",
        headers: slackHeaders(click),
        body: click,
      });

      // Assess
      expect(commanded.status).toBe(200);
      expect(clicked.status).toBe(400);
      for (const answer of [commanded, clicked]) {
        expect(jsonOf(answer).text).toEqual(expect.any(String));
        expect(answer.body).not.toContain("try again");
      }
    });

    it.each([1_000, 5_000, 8_125])(
      "3. a GoalSpec nested %i levels deep is a 400 naming the limit of 64",
      async (levels) => {
        // Prepare
        const before = await stored();

        // Act
        const answer = await sendOverHttp(e2e.stack.apiUrl, {
          method: "POST",
          path: "/goals",
          headers: [["content-type", "application/json"]],
          body: deepSpec(levels),
        });

        // Assess
        expect(answer.status).toBe(400);
        expect(jsonOf(answer).error).toMatchObject({
          code: "ValidationError",
          message: expect.stringContaining("deeper than 64 levels"),
        });
        expect(await stored()).toBe(before);
      },
    );

    it("4. a wrong method is a 405 with Allow, an unknown route a 404 RouteNotFound", async () => {
      // Act
      const deleteGoals = await sendOverHttp(e2e.stack.apiUrl, {
        method: "DELETE",
        path: "/goals",
        headers: [],
      });
      const getLimits = await sendOverHttp(e2e.stack.apiUrl, {
        method: "GET",
        path: `/goals/${fixture.goalId}/limits`,
        headers: [],
      });
      const unknown = await sendOverHttp(e2e.stack.apiUrl, { method: "GET", path: "/goal", headers: [] });

      // Assess
      expect(deleteGoals.status).toBe(405);
      expect(deleteGoals.headers.allow?.split(", ").sort()).toEqual(["GET", "POST"]);
      expect(jsonOf(deleteGoals).error).toMatchObject({ code: "MethodNotAllowed" });
      expect(getLimits.status).toBe(405);
      expect(getLimits.headers.allow).toBe("POST");
      expect(unknown.status).toBe(404);
      expect(jsonOf(unknown).error).toMatchObject({ code: "RouteNotFound" });
    });

    it("a Slack click whose response_url is javascript: is refused, deciding nothing", async () => {
      // Prepare
      const click = new URLSearchParams({
        payload: JSON.stringify({
          type: "block_actions",
          user: { id: SLACK_APPROVER },
          actions: [{ action_id: "approve", value: fixture.approvalId }],
          response_url: "javascript:alert(document.domain)",
        }),
      }).toString();

      // Act
      const answer = await sendOverHttp(e2e.stack.apiUrl, {
        method: "POST",
        path: "/slack/interactions",
        headers: slackHeaders(click),
        body: click,
      });

      // Assess
      expect(answer.status).toBe(400);
      expect(jsonOf(answer).text).toContain("not on Slack's hosts");
      const snapshot = await e2e.client.getGoal(fixture.goalId);
      expect(snapshot).toMatchObject({ status: "waiting", waitingFor: { approvalId: fixture.approvalId } });
    });
  });

  function fuzzTheLocalServer() {
    return fuzzApi("local server", badRequests({ routes, otherPaths: ["/_local/outbox"], slack: true }), {
      seed: SEED,
      numRuns: 200,
      send,
      stored,
    });
  }

  it("answers every generated bad request with a right 4xx in the error shape, storing nothing, and serves on", async () => {
    // Act + Assess (per request, inside the property)
    await fuzzTheLocalServer();

    // Assess: the server is up and the waiting goal untouched
    const snapshot = await e2e.client.getGoal(fixture.goalId);
    expect(snapshot).toMatchObject({ status: "waiting", waitingFor: { approvalId: fixture.approvalId } });
  });

  it("fails, naming the minimal request, when a guard is broken on purpose", async () => {
    // Prepare: the test-only switch swaps in a bare decodeURIComponent for path parameters
    process.env[BREAK_GUARD_VARIABLE] = "path-decoding";

    try {
      // Act
      const run = fuzzTheLocalServer();

      // Assess
      await expect(run).rejects.toThrow(/minimal request: GET \/goals\/%\n/);
      await expect(run).rejects.toThrow(/a 5xx: 500 .*"code":"InternalError"/);
    } finally {
      delete process.env[BREAK_GUARD_VARIABLE];
    }
    // The guard of last resort held: the server answered the 500s and is still up.
    expect(
      (await sendOverHttp(e2e.stack.apiUrl, { method: "GET", path: "/goals/%", headers: [] })).status,
    ).toBe(400);
  });

  it("still completes a normal goal afterwards", async () => {
    // Act
    const decided = await sendOverHttp(e2e.stack.apiUrl, {
      method: "POST",
      path: `/approvals/${fixture.approvalId}`,
      headers: [["content-type", "application/json"]],
      body: JSON.stringify({ decision: "approve" }),
    });
    // The decision wakes the goal through the bus: wait until it no longer waits, with a deadline.
    const deadline = Date.now() + 30_000;
    for (;;) {
      await e2e.stack.events.idle();
      const snapshot = await e2e.client.getGoal(fixture.goalId);
      if (snapshot.status !== "waiting") break;
      if (Date.now() > deadline) throw new Error(`goal ${fixture.goalId} still waits after its approval`);
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
    }
    const { final } = await followGoal(e2e.client, fixture.goalId);

    // Assess
    expect(decided.status).toBe(200);
    expect(final.status).toBe("completed");
  });
});
