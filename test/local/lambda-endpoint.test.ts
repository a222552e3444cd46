import {
  InvalidRequestContentException,
  InvokeCommand,
  type InvokeCommandOutput,
  LambdaClient,
  ResourceNotFoundException,
} from "@aws-sdk/client-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCloudAssembly } from "../../lib/local/cdk-out/cdk-out";
import { type LambdaEndpoint, startLambdaEndpoint } from "../../lib/local/lambda/lambda-endpoint";
import { LambdaHost } from "../../lib/local/lambda/lambda-host";
import type {
  CloudAssemblyModel,
  FunctionSpec,
  JsonValue,
} from "../../lib/local/shared/cloud-assembly-model";
import { synthFixtureApp } from "./fixtures/fixture-app";
import { collectingLog, LOCAL_CREDENTIALS } from "./support";

describe("the local Lambda Invoke endpoint, driven by the real LambdaClient", () => {
  let model: CloudAssemblyModel;
  let host: LambdaHost;
  let endpoint: LambdaEndpoint;
  let client: LambdaClient;
  const logLines: string[] = [];
  /** Every invocation the endpoint passed to the host, and how it ended. */
  const invocations: { functionRef: string; event: JsonValue; outcome?: "ok" | "failed" }[] = [];
  const fn = (logicalIdPrefix: string): FunctionSpec => {
    const spec = model.functions.find((f) => f.logicalId.startsWith(logicalIdPrefix));
    if (spec === undefined) throw new Error(`no fixture function ${logicalIdPrefix}`);
    return spec;
  };
  const payloadOf = (output: InvokeCommandOutput): unknown =>
    JSON.parse(new TextDecoder().decode(output.Payload));
  const invokeJson = (FunctionName: string, event: unknown, extra: Partial<InvokeCommand["input"]> = {}) =>
    client.send(new InvokeCommand({ FunctionName, Payload: JSON.stringify(event), ...extra }));

  beforeAll(async () => {
    model = loadCloudAssembly(synthFixtureApp());
    host = new LambdaHost({ functions: model.functions, endpoints: {}, log: collectingLog().log });
    endpoint = await startLambdaEndpoint({
      invokeFunction: async (functionRef, event) => {
        const invocation: (typeof invocations)[number] = { functionRef, event };
        invocations.push(invocation);
        try {
          const result = await host.invoke(functionRef, event);
          invocation.outcome = "ok";
          return result;
        } catch (error) {
          invocation.outcome = "failed";
          throw error;
        }
      },
      functionExists: (functionRef) => host.find(functionRef) !== undefined,
      log: (line) => logLines.push(line),
    });
    client = new LambdaClient({
      endpoint: endpoint.url,
      region: "us-east-1",
      credentials: LOCAL_CREDENTIALS,
      maxAttempts: 1,
    });
  });
  afterAll(async () => {
    client?.destroy();
    await endpoint?.close();
    await host?.close();
  });

  it("answers a RequestResponse invocation by name with the handler's JSON result", async () => {
    // Act
    const output = await invokeJson("fixture-worker-b", { action: "env" });

    // Assess
    expect(output.StatusCode).toBe(200);
    expect(output.FunctionError).toBeUndefined();
    expect(output.ExecutedVersion).toBe("$LATEST");
    expect(payloadOf(output)).toMatchObject({ functionName: "fixture-worker-b", flavor: "b" });
  });

  it("finds a function by its ARN, its qualified ARN and its partial ARN", async () => {
    // Prepare
    const a = fn("WorkerA");
    const partialArn = a.arn.replace(/^arn:[^:]+:lambda:[^:]+:/, "");

    // Act
    const outputs = await Promise.all([
      invokeJson(a.arn, { action: "env" }),
      invokeJson(`${a.arn}:$LATEST`, { action: "env" }),
      invokeJson(partialArn, { action: "env" }, { Qualifier: "$LATEST" }),
    ]);

    // Assess
    for (const output of outputs) {
      expect(output.StatusCode).toBe(200);
      expect(payloadOf(output)).toMatchObject({ functionName: a.functionName, flavor: "a" });
    }
  });

  it("invokes with an empty event when the request has no payload", async () => {
    // Act: the fixture handler answers nothing for an event without an action.
    const output = await client.send(new InvokeCommand({ FunctionName: fn("Legacy").functionName }));

    // Assess
    expect(output.StatusCode).toBe(200);
    expect(payloadOf(output)).toBeNull();
    expect(invocations.at(-1)?.event).toEqual({});
  });

  it("reports a handler's error as FunctionError Unhandled with errorType, errorMessage and trace", async () => {
    // Act
    const output = await invokeJson(fn("WorkerA").arn, {
      action: "fail",
      errorName: "ToolBrokeError",
      times: 1,
      key: "endpoint-error",
    });

    // Assess
    expect(output.StatusCode).toBe(200);
    expect(output.FunctionError).toBe("Unhandled");
    const payload = payloadOf(output) as { errorType: string; errorMessage: string; trace: string[] };
    expect(payload).toMatchObject({ errorType: "ToolBrokeError", errorMessage: "failure 1 of 1" });
    expect(payload.trace[0]).toContain("ToolBrokeError");
  });

  it("reports a function that outlives its timeout as FunctionError Unhandled with Lambda's timeout message", async () => {
    // Prepare: Sleepy has a 1 s timeout.
    const sleepy = fn("Sleepy");

    // Act
    const output = await invokeJson(sleepy.functionName, { action: "sleep", ms: 10_000 });

    // Assess
    expect(output.StatusCode).toBe(200);
    expect(output.FunctionError).toBe("Unhandled");
    expect(payloadOf(output)).toMatchObject({
      errorType: "Sandbox.Timedout",
      errorMessage: expect.stringContaining("Task timed out after 1.00 seconds"),
    });
  });

  it("raises ResourceNotFoundException in the SDK for an unknown function or a version the runtime lacks", async () => {
    // Act
    const unknown = await invokeJson("no-such-function", {}).catch((error: unknown) => error);
    const versioned = await invokeJson(fn("WorkerA").arn, {}, { Qualifier: "7" }).catch(
      (error: unknown) => error,
    );
    const unknownEvent = await invokeJson("no-such-function", {}, { InvocationType: "Event" }).catch(
      (error: unknown) => error,
    );

    // Assess
    for (const failure of [unknown, versioned, unknownEvent]) {
      expect(failure).toBeInstanceOf(ResourceNotFoundException);
      expect(failure).toMatchObject({ $metadata: { httpStatusCode: 404 }, Type: "User" });
    }
    expect((unknown as ResourceNotFoundException).message).toContain("no-such-function");
    expect((versioned as ResourceNotFoundException).message).toContain(":7");
  });

  it("answers an Event invocation with 202 and runs the function in the background", async () => {
    // Prepare
    const b = fn("WorkerB");

    // Act
    const output = await invokeJson(
      b.functionName,
      { action: "sleep", ms: 300 },
      { InvocationType: "Event" },
    );

    // Assess: answered before the function finished, which then ran to its end.
    expect(output.StatusCode).toBe(202);
    const invocation = invocations.find(
      (entry) => entry.functionRef === b.functionName && JSON.stringify(entry.event).includes('"ms":300'),
    );
    expect(invocation?.outcome).toBeUndefined();
    await endpoint.idle();
    expect(invocation?.outcome).toBe("ok");
  });

  it("logs the failure of an Event invocation and keeps serving", async () => {
    // Act
    const output = await invokeJson(
      fn("WorkerA").arn,
      { action: "fail", errorName: "BackgroundError", times: 1, key: "endpoint-event" },
      { InvocationType: "Event" },
    );
    await endpoint.idle();
    const next = await invokeJson("fixture-worker-b", { action: "env" });

    // Assess
    expect(output.StatusCode).toBe(202);
    expect(logLines.find((line) => line.includes("BackgroundError"))).toContain("failure 1 of 1");
    expect(next.StatusCode).toBe(200);
  });

  it("answers a DryRun invocation with 204 without running the function", async () => {
    // Prepare
    const before = invocations.length;

    // Act
    const output = await invokeJson("fixture-worker-b", { action: "env" }, { InvocationType: "DryRun" });

    // Assess
    expect(output.StatusCode).toBe(204);
    expect(invocations).toHaveLength(before);
  });

  it("raises InvalidRequestContentException in the SDK for a payload that is not JSON", async () => {
    // Act
    const failure = await client
      .send(
        new InvokeCommand({ FunctionName: "fixture-worker-b", Payload: new TextEncoder().encode("{nope") }),
      )
      .catch((error: unknown) => error);

    // Assess
    expect(failure).toBeInstanceOf(InvalidRequestContentException);
    expect(failure).toMatchObject({ $metadata: { httpStatusCode: 400 } });
    expect((failure as InvalidRequestContentException).message).toContain(
      "Could not parse request body into json",
    );
  });
});
