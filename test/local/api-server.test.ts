import { once } from "node:events";
import { connect } from "node:net";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_LOCAL_REQUEST_BYTES, startApiServer } from "../../lib/local/api/api-server";
import { loadCloudAssembly } from "../../lib/local/cdk-out/cdk-out";
import { LambdaHost } from "../../lib/local/lambda/lambda-host";
import type { CloudAssemblyModel } from "../../lib/local/shared/cloud-assembly-model";
import type { RunningServer } from "../../lib/local/shared/listen";
import { synthFixtureApp } from "./fixtures/fixture-app";
import { collectingLog } from "./support";

interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly requestId?: string };
}

interface Echo {
  readonly event: APIGatewayProxyEvent;
  readonly env: Record<string, string>;
}

describe("the local API server", () => {
  let model: CloudAssemblyModel;
  let host: LambdaHost;
  let server: RunningServer;
  const errors: string[] = [];

  beforeAll(async () => {
    model = loadCloudAssembly(synthFixtureApp());
    host = new LambdaHost({ functions: model.functions, endpoints: {}, log: collectingLog().log });
    server = await startApiServer({
      routes: model.apiRoutes,
      invokeFunction: (arn, event) => host.invoke(arn, event),
      port: 0,
      onError: (message) => errors.push(message),
    });
  });
  afterAll(async () => {
    await server.close();
    await host.close();
  });

  it("turns a request into the REST API proxy event the route's function receives", async () => {
    // Act
    const response = await fetch(`${server.url}/items/i-42/events?after=3&tag=a&tag=b`, {
      headers: { "X-Custom": "yes", Accept: "application/json" },
    });
    const { event, env } = (await response.json()) as Echo;

    // Assess
    expect(response.status).toBe(200);
    expect(event).toMatchObject({
      resource: "/items/{id}/events",
      path: "/items/i-42/events",
      httpMethod: "GET",
      pathParameters: { id: "i-42" },
      queryStringParameters: { after: "3", tag: "b" },
      multiValueQueryStringParameters: { after: ["3"], tag: ["a", "b"] },
      body: null,
      isBase64Encoded: false,
      requestContext: {
        stage: "local",
        resourcePath: "/items/{id}/events",
        httpMethod: "GET",
        identity: { accountId: "local", caller: "local", userArn: "arn:aws:iam::local:user/local" },
      },
    });
    expect(event.headers["X-Custom"]).toBe("yes");
    expect(event.requestContext.requestId).toMatch(/^[0-9a-f-]{36}$/);
    // The function's environment came from the template, resolved to local names.
    expect(JSON.parse(env.STATE_MACHINE_ARNS ?? "{}")).toEqual({ flow: model.stateMachines[0]?.arn });
  });

  it("passes the body and writes the function's status, headers and multi-value headers back", async () => {
    // Act
    const response = await fetch(`${server.url}/items`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "x" }),
    });
    const { event } = (await response.json()) as Echo;

    // Assess
    expect(response.status).toBe(201);
    expect(response.headers.get("x-echo")).toBe("yes");
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(event.body).toBe('{"name":"x"}');
    expect(event.queryStringParameters).toBeNull();
  });

  it("routes a greedy {proxy+} path for any method", async () => {
    // Act
    const response = await fetch(`${server.url}/things/a/b/c`, { method: "DELETE" });
    const { event } = (await response.json()) as Echo;

    // Assess
    expect(event).toMatchObject({ resource: "/things/{proxy+}", pathParameters: { proxy: "a/b/c" } });
  });

  it("answers an unknown route 404 RouteNotFound in the API's error shape, naming it", async () => {
    // Act
    const response = await fetch(`${server.url}/nope`);
    const body = (await response.json()) as ErrorBody;

    // Assess
    expect(response.status).toBe(404);
    expect(body.error.code).toBe("RouteNotFound");
    expect(body.error.message).toContain("No route for GET /nope");
    expect(body.error.message).toContain("GET /items/{id}");
  });

  it("answers a served path under another method 405 with Allow, in the API's error shape", async () => {
    // Act
    const response = await fetch(`${server.url}/items/i-1`, { method: "DELETE" });
    const body = (await response.json()) as ErrorBody;

    // Assess
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET");
    expect(body.error.code).toBe("MethodNotAllowed");
  });

  it("answers a failing function with 502 as API Gateway does, and reports the error", async () => {
    // Act
    const response = await fetch(`${server.url}/things/boom`);

    // Assess
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ message: "Internal server error" });
    expect(errors.some((e) => e.includes("/things/boom"))).toBe(true);
  });

  it.each(["%", "%ZZ", "%E0%A4%A"])(
    "answers a bad percent escape in a parameter (%s) 400 naming the parameter, and serves on",
    async (segment) => {
      // Act
      const response = await fetch(`${server.url}/items/${segment}/events`);
      const body = (await response.json()) as ErrorBody;
      const after = await fetch(`${server.url}/items/i-1`);

      // Assess
      expect(response.status).toBe(400);
      expect(body.error).toMatchObject({ code: "ValidationError", message: expect.stringContaining("id:") });
      expect(body.error.message).toContain(segment);
      expect(after.status).toBe(200);
    },
  );

  it.each(["__proto__", "constructor", "toString", "hasOwnProperty"])(
    "passes a query and a header named %s through as ordinary names",
    async (name) => {
      // Act: raw bytes, since fetch drops a header named __proto__
      const raw = await rawRequest(
        server.port,
        `GET /items/i-1?${name}=q&${name}=r&after=1 HTTP/1.1\r\nHost: x\r\n${name}: h\r\nConnection: close\r\n\r\n`,
      );
      const { event } = JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4)) as Echo;

      // Assess
      expect(raw).toMatch(/^HTTP\/1\.1 200 /);
      expect(Object.entries(event.queryStringParameters ?? {})).toContainEqual([name, "r"]);
      expect(Object.entries(event.multiValueQueryStringParameters ?? {})).toContainEqual([name, ["q", "r"]]);
      expect(Object.entries(event.headers)).toContainEqual([name, "h"]);
    },
  );

  it("answers a body larger than API Gateway takes 413 in the API's error shape", async () => {
    // Act
    const response = await fetch(`${server.url}/items`, {
      method: "POST",
      body: Buffer.alloc(MAX_LOCAL_REQUEST_BYTES + 1, 0x61),
    });
    const body = (await response.json()) as ErrorBody;

    // Assess
    expect(response.status).toBe(413);
    expect(body.error.code).toBe("RequestTooLarge");
  });

  it("answers an unexpected failure 500 with a request id it logs, and serves on", async () => {
    // Prepare: a local route that throws stands for any bug in the server's own code
    const failing = await startApiServer({
      routes: model.apiRoutes,
      invokeFunction: () => Promise.reject(new Error("unused")),
      port: 0,
      onError: (message) => errors.push(message),
      localRoutes: {
        "/_local/boom": () => {
          throw new TypeError("a bug");
        },
      },
    });

    try {
      // Act
      const response = await fetch(`${failing.url}/_local/boom`);
      const body = (await response.json()) as ErrorBody;
      const after = await fetch(`${failing.url}/nope`);

      // Assess
      expect(response.status).toBe(500);
      expect(body.error).toMatchObject({ code: "InternalError", message: "internal error" });
      expect(errors.some((line) => line.includes(body.error.requestId ?? "no id"))).toBe(true);
      expect(after.status).toBe(404);
    } finally {
      await failing.close();
    }
  });

  it("answers a request line Node cannot parse 400 in the API's error shape, and serves on", async () => {
    // Act
    const raw = await rawRequest(server.port, "GET /items/i-1 HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n");
    const after = await fetch(`${server.url}/items/i-1`);

    // Assess
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toContain('"code":"BadRequest"');
    expect(after.status).toBe(200);
  });
});

/** Sends bytes as they are over one connection and returns everything the server answered. */
async function rawRequest(port: number, text: string): Promise<string> {
  const socket = connect(port, "127.0.0.1");
  const chunks: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  socket.write(text);
  await once(socket, "close");
  return Buffer.concat(chunks).toString("utf8");
}
