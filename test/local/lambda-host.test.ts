import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCloudAssembly } from "../../lib/local/cdk-out/cdk-out";
import { LambdaHost } from "../../lib/local/lambda/lambda-host";
import type { CloudAssemblyModel, FunctionSpec } from "../../lib/local/shared/cloud-assembly-model";
import { AwsApiError, LambdaFunctionError } from "../../lib/local/shared/errors";
import { FIXTURE_MODEL_ID, synthFixtureApp } from "./fixtures/fixture-app";
import { collectingLog } from "./support";

describe("LambdaHost", () => {
  let model: CloudAssemblyModel;
  let host: LambdaHost;
  const fn = (logicalIdPrefix: string): FunctionSpec => {
    const spec = model.functions.find((f) => f.logicalId.startsWith(logicalIdPrefix));
    if (spec === undefined) throw new Error(`no fixture function ${logicalIdPrefix}`);
    return spec;
  };

  beforeAll(() => {
    model = loadCloudAssembly(synthFixtureApp());
    host = new LambdaHost({
      functions: model.functions,
      endpoints: { sfn: "http://127.0.0.1:9", dynamodb: "http://127.0.0.1:8" },
      environmentOverrides: { EXTRA: "override" },
      log: collectingLog().log,
    });
  });
  afterAll(() => host.close());

  it("runs each function with its own environment, also when invoked concurrently", async () => {
    // Prepare: two functions of the same bundle with different variables.
    const [a, b] = [fn("WorkerA"), fn("WorkerB")];

    // Act
    const [seenByA, seenByB] = await Promise.all([
      host.invoke(a.arn, { action: "env" }),
      host.invoke(b.functionName, { action: "env" }),
    ]);

    // Assess: each saw its own variables and the local wiring; this process saw neither.
    expect(seenByA).toMatchObject({
      functionName: a.functionName,
      flavor: "a",
      tableName: a.environment.TABLE_NAME,
      modelId: FIXTURE_MODEL_ID,
      region: "us-east-1",
      sfnEndpoint: "http://127.0.0.1:9",
      taskRoot: a.assetDir,
    });
    expect(seenByB).toMatchObject({
      functionName: "fixture-worker-b",
      flavor: "b",
      tableName: "plain-table",
    });
    expect(process.env.FLAVOR).toBeUndefined();
  });

  it("loads a CommonJS bundle (index.js) as well as an ES module one", async () => {
    // Act
    const seen = await host.invoke(fn("Legacy").arn, { action: "env" });

    // Assess
    expect(seen).toMatchObject({ flavor: "cjs" });
  });

  it("reports a function error with its name and the Cause JSON Step Functions shows", async () => {
    // Act
    const failure = await host
      .invoke(fn("WorkerA").arn, { action: "fail", errorName: "TransientError", times: 1, key: "host-error" })
      .catch((error: unknown) => error);

    // Assess
    expect(failure).toBeInstanceOf(LambdaFunctionError);
    expect(failure).toMatchObject({ name: "TransientError" });
    const cause = JSON.parse((failure as LambdaFunctionError).message);
    expect(cause).toMatchObject({ errorType: "TransientError", errorMessage: "failure 1 of 1" });
    expect(cause.trace[0]).toContain("TransientError");
  });

  it("ends an invocation that outlives the function's timeout with Sandbox.Timedout and starts afresh", async () => {
    // Prepare: Sleepy has a 1 s timeout.
    const sleepy = fn("Sleepy");
    const coldStartsBefore = host.coldStarts(sleepy.arn);

    // Act
    const started = Date.now();
    const failure = await host
      .invoke(sleepy.arn, { action: "sleep", ms: 10_000 })
      .catch((error: unknown) => error);
    const elapsed = Date.now() - started;
    const next = await host.invoke(sleepy.arn, { action: "sleep", ms: 1 });

    // Assess
    expect(failure).toMatchObject({ name: "Sandbox.Timedout" });
    expect((failure as LambdaFunctionError).payload.errorMessage).toContain(
      "Task timed out after 1.00 seconds",
    );
    expect(elapsed).toBeLessThan(5_000);
    expect(next).toMatchObject({ slept: 1 });
    expect(host.coldStarts(sleepy.arn)).toBe(coldStartsBefore + 2);
  });

  it("gives concurrent invocations of one function separate sandboxes and reuses warm ones", async () => {
    // Prepare
    const a = fn("WorkerA");
    await host.invoke(a.arn, { action: "sleep", ms: 1 });
    const warm = host.coldStarts(a.arn);

    // Act: two at once need a second sandbox; the next one finds a warm sandbox.
    await Promise.all([
      host.invoke(a.arn, { action: "sleep", ms: 200 }),
      host.invoke(a.arn, { action: "sleep", ms: 200 }),
    ]);
    await host.invoke(a.arn, { action: "sleep", ms: 1 });

    // Assess
    expect(host.coldStarts(a.arn)).toBe(Math.max(warm, 2));
  });

  it("layers the runtime's overrides over the function's own variables", () => {
    // Act
    const env = host.environmentOf(fn("WorkerA"));

    // Assess
    expect(env).toMatchObject({
      FLAVOR: "a",
      EXTRA: "override",
      AWS_ENDPOINT_URL_SFN: "http://127.0.0.1:9",
      AWS_ENDPOINT_URL_DYNAMODB: "http://127.0.0.1:8",
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      AWS_ACCESS_KEY_ID: "local",
    });
  });

  it("answers an unknown function with ResourceNotFoundException", async () => {
    // Act
    const failure = await host.invoke("nope", {}).catch((error: unknown) => error);

    // Assess
    expect(failure).toBeInstanceOf(AwsApiError);
    expect(failure).toMatchObject({ code: "ResourceNotFoundException" });
  });
});
