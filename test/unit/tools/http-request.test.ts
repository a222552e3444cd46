import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolUseBlock } from "../../../lambdas/core/ports/model-client";
import { createBuiltInToolRunner, httpRequestTool, OUTBOX_ONLY_NOTIFY } from "../../../lambdas/tools";
import {
  callContext,
  InMemoryOutbox,
  InMemoryWorkspace,
  type LocalHttpServer,
  startHttpServer,
} from "./support";

let server: LocalHttpServer;

beforeAll(async () => {
  server = await startHttpServer((request, response) => {
    if (request.url === "/status") {
      response.writeHead(200, { "content-type": "application/json", "x-request-id": "r-1" });
      response.end(JSON.stringify({ healthy: true, failed: 0 }));
    } else if (request.url === "/large") {
      response.writeHead(200, { "content-type": "text/plain" });
      response.end("a".repeat(50_000));
    } else if (request.url === "/moved") {
      response.writeHead(302, { location: "http://elsewhere.invalid/" });
      response.end();
    } else if (request.url === "/slow") {
      // Never answers: the tool's timeout must end the call.
    } else {
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("not here");
    }
  });
});

afterAll(async () => {
  await server.close();
});

function setup(options: { allowedHosts?: string[]; httpTimeoutMs?: number; maxResponseBytes?: number } = {}) {
  const workspace = new InMemoryWorkspace();
  const runner = createBuiltInToolRunner({
    workspace,
    outbox: new InMemoryOutbox(),
    allowedHosts: options.allowedHosts ?? ["127.0.0.1"],
    httpTimeoutMs: options.httpTimeoutMs,
    maxResponseBytes: options.maxResponseBytes,
  });
  const context = callContext({ grantedTools: ["http_request"] });
  const request = (input: ToolUseBlock["input"], toolUseId = "tooluse_http") =>
    runner.run({ toolUseId, name: "http_request", input }, context);
  return { runner, workspace, request, context };
}

const text = (outcome: { result: { content: readonly unknown[] } }) => JSON.stringify(outcome.result.content);

describe("http_request: GET to allow-listed hosts", () => {
  it("returns the status, the kept headers and the body from a real server", async () => {
    // Prepare
    const { request } = setup();

    // Act
    const outcome = await request({ method: "GET", url: `${server.origin}/status` });

    // Assess: dates and request ids are dropped, so the same answer always hashes the same.
    expect(outcome.errorName).toBeUndefined();
    expect(outcome.result.content).toEqual([
      {
        json: {
          status: 200,
          headers: { "content-type": "application/json" },
          bodyTruncated: false,
          body: '{"healthy":true,"failed":0}',
        },
      },
    ]);
    // A `tool_result` check with `contains` reads the body as written, unescaped.
    expect(outcome.observation.resultText).toBe('{"healthy":true,"failed":0}');
  });

  it("reports a 404 as a result the model can read, not as a tool error", async () => {
    // Prepare
    const { request } = setup();

    // Act
    const outcome = await request({ method: "GET", url: `${server.origin}/nothing` });

    // Assess
    expect(outcome.result.status).toBe("success");
    expect(outcome.result.content).toEqual([
      { json: expect.objectContaining({ status: 404, body: "not here" }) },
    ]);
  });

  it("does not follow a redirect to a host outside the allow-list: it returns the Location", async () => {
    // Prepare
    const { request } = setup();

    // Act
    const outcome = await request({ method: "GET", url: `${server.origin}/moved` });

    // Assess
    expect(outcome.result.content).toEqual([
      {
        json: {
          status: 302,
          headers: { location: "http://elsewhere.invalid/" },
          bodyTruncated: false,
          body: "",
        },
      },
    ]);
  });

  it("keeps at most maxResponseBytes of the body and stores a body over the inline bound as an artifact", async () => {
    // Prepare
    const { request, workspace } = setup({ maxResponseBytes: 10_000 });

    // Act
    const outcome = await request({ method: "GET", url: `${server.origin}/large` }, "tooluse_large");

    // Assess
    const artifact = await workspace.readFile("g-tools", ".artifacts/3-tooluse_large.txt");
    expect(artifact?.content).toBe("a".repeat(10_000));
    expect(outcome.artifacts).toEqual([{ path: ".artifacts/3-tooluse_large.txt", sha256: artifact?.sha256 }]);
    expect(Buffer.byteLength(text(outcome))).toBeLessThanOrEqual(4096);
    expect(outcome.result.content).toEqual([
      {
        json: expect.objectContaining({
          status: 200,
          bodyTruncated: true,
          outputTooLarge: expect.objectContaining({ path: ".artifacts/3-tooluse_large.txt", size: 10_000 }),
        }),
      },
    ]);
  });

  it("answers HttpRequestFailed when the server does not answer within the timeout", async () => {
    // Prepare
    const { request } = setup({ httpTimeoutMs: 200 });

    // Act
    const outcome = await request({ method: "GET", url: `${server.origin}/slow` });

    // Assess
    expect(outcome.errorName).toBe("HttpRequestFailed");
    expect(text(outcome)).toContain("no complete response within 200 ms");
  });

  it("answers HttpRequestFailed when nothing listens on the port", async () => {
    // Prepare
    const closed = await startHttpServer(() => undefined);
    await closed.close();
    const { request } = setup();

    // Act
    const outcome = await request({ method: "GET", url: `${closed.origin}/` });

    // Assess
    expect(outcome.errorName).toBe("HttpRequestFailed");
    expect(text(outcome)).toContain("ECONNREFUSED");
  });
});

describe("http_request: refusals", () => {
  it("sends nothing for a POST nobody approved (irreversible), and sends an approved one once, keyed", async () => {
    // Prepare
    const { runner, context } = setup();
    const before = server.requests.length;
    const call = {
      toolUseId: "tooluse_post",
      name: "http_request",
      input: { method: "POST", url: `${server.origin}/status`, body: "{}" },
    };

    // Act
    const refused = await runner.run(call, context);
    const approved = await runner.run(call, { ...context, approvedCalls: ["tooluse_post"] });

    // Assess
    expect(refused.errorName).toBe("ApprovalRequired");
    expect(server.requests.length).toBe(before + 1);
    expect(approved.result.status).toBe("success");
    expect(server.requests.at(-1)).toMatchObject({ method: "POST" });
  });

  it("refuses a host outside the allow-list, naming the host and the list", async () => {
    // Prepare
    const { request } = setup({ allowedHosts: ["api.example.com", "127.0.0.1"] });

    // Act
    const outcome = await request({ method: "GET", url: "http://localhost:1/status" });

    // Assess
    expect(outcome.errorName).toBe("HttpRequestRefused");
    expect(text(outcome)).toContain(
      "host 'localhost' is not in the allow-list (allowed: [api.example.com, 127.0.0.1])",
    );
  });

  it("says so when the allow-list is empty", async () => {
    // Prepare
    const { request } = setup({ allowedHosts: [] });

    // Act
    const outcome = await request({ method: "GET", url: `${server.origin}/status` });

    // Assess
    expect(outcome.errorName).toBe("HttpRequestRefused");
    expect(text(outcome)).toContain("the allow-list is empty");
  });

  it("rejects a non-http URL and a GET with a body as invalid input", async () => {
    // Prepare
    const { request } = setup();

    // Act
    const fileUrl = await request({ method: "GET", url: "file:///etc/passwd" });
    const withBody = await request({ method: "GET", url: `${server.origin}/status`, body: "x" });

    // Assess
    expect(fileUrl.errorName).toBe("InvalidToolInput");
    expect(text(fileUrl)).toContain("url: must be an absolute http or https URL");
    expect(withBody.errorName).toBe("InvalidToolInput");
    expect(text(withBody)).toContain("body: a GET request has no body");
  });
});

describe("http_request: idempotency key", () => {
  /** The tool's own execute (the runner still refuses non-GET methods first), with a recording fetch. */
  async function execute(input: { method: "GET" | "POST" | "PUT"; url: string; body?: string }) {
    const sent: RequestInit[] = [];
    const fetch: typeof globalThis.fetch = async (_url, init) => {
      sent.push(init ?? {});
      return new Response("ok", { status: 200 });
    };
    await httpRequestTool.execute(input, {
      call: { toolUseId: "tooluse_http", name: "http_request", input },
      context: callContext({ grantedTools: ["http_request"], idempotencyKey: "key-of-this-call" }),
      workspace: new InMemoryWorkspace(),
      outbox: new InMemoryOutbox(),
      http: { allowedHosts: ["127.0.0.1"], fetch, timeoutMs: 1000, maxResponseBytes: 1000 },
      notify: OUTBOX_ONLY_NOTIFY,
      now: () => new Date(),
    });
    return sent;
  }

  it("sends the call's key as Idempotency-Key with a method that changes something", async () => {
    // Act
    const sent = await execute({ method: "POST", url: "http://127.0.0.1/orders", body: "{}" });

    // Assess
    expect(sent).toEqual([
      expect.objectContaining({
        method: "POST",
        body: "{}",
        headers: { "Idempotency-Key": "key-of-this-call" },
      }),
    ]);
  });

  it("sends no key with a GET, which changes nothing", async () => {
    // Act
    const sent = await execute({ method: "GET", url: "http://127.0.0.1/status" });

    // Assess
    expect(sent).toHaveLength(1);
    expect(sent[0]?.method).toBe("GET");
    expect(sent[0]?.headers).toBeUndefined();
  });
});
