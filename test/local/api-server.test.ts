import type { APIGatewayProxyEvent } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer } from "../../lib/local/api-server";
import { loadCloudAssembly } from "../../lib/local/cdk-out";
import type { CloudAssemblyModel } from "../../lib/local/cloud-assembly-model";
import { LambdaHost } from "../../lib/local/lambda-host";
import type { RunningServer } from "../../lib/local/listen";
import { synthFixtureApp } from "./fixtures/fixture-app";
import { collectingLog } from "./support";

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

  it("answers an unknown route with a JSON 404 naming it", async () => {
    // Act
    const response = await fetch(`${server.url}/nope`);
    const body = (await response.json()) as { message: string };

    // Assess
    expect(response.status).toBe(404);
    expect(body.message).toContain("No route for GET /nope");
    expect(body.message).toContain("GET /items/{id}");
  });

  it("answers a failing function with 502 as API Gateway does, and reports the error", async () => {
    // Act
    const response = await fetch(`${server.url}/things/boom`);

    // Assess
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ message: "Internal server error" });
    expect(errors.some((e) => e.includes("/things/boom"))).toBe(true);
  });
});
