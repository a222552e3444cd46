import { once } from "node:events";
import { createServer, type Http2Server, type IncomingHttpHeaders, type ServerHttp2Stream } from "node:http2";
import type { AddressInfo } from "node:net";
import { type BedrockRuntimeClient, ConverseCommand } from "@aws-sdk/client-bedrock-runtime";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { toModelError } from "../../../lambdas/adapters/bedrock/bedrock-errors";
import { createBedrockRuntimeClient } from "../../../lambdas/adapters/bedrock/bedrock-runtime-client";

/** What the fake endpoint does with each stream; set per test. */
type Respond = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => void;

const converseInput = {
  modelId: "scripted:demo",
  messages: [{ role: "user" as const, content: [{ text: "hi" }] }],
};

function reply(status: number, body: unknown, errorType?: string): Respond {
  return (stream) => {
    stream.respond({
      ":status": status,
      "content-type": "application/json",
      ...(errorType ? { "x-amzn-errortype": errorType } : {}),
    });
    stream.end(JSON.stringify(body));
  };
}

/**
 * A cleartext HTTP/2 (h2c) server standing in for the Bedrock endpoint, reached through
 * AWS_ENDPOINT_URL_BEDROCK_RUNTIME exactly as the local fixture endpoint is.
 */
describe("createBedrockRuntimeClient", () => {
  let server: Http2Server;
  let respond: Respond;
  let requests: IncomingHttpHeaders[];
  let client: BedrockRuntimeClient | undefined;

  beforeEach(async () => {
    requests = [];
    server = createServer();
    server.on("stream", (stream, headers) => {
      requests.push(headers);
      respond(stream, headers);
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    vi.stubEnv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", `http://127.0.0.1:${port}`);
    vi.stubEnv("AWS_REGION", "eu-west-1");
    vi.stubEnv("AWS_ACCESS_KEY_ID", "test");
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", "test");
  });

  afterEach(async () => {
    client?.destroy();
    client = undefined;
    vi.unstubAllEnvs();
    server.close();
    await once(server, "close");
  });

  it("sends Converse over HTTP/2 to the endpoint in AWS_ENDPOINT_URL_BEDROCK_RUNTIME", async () => {
    // Prepare
    respond = reply(200, {
      output: { message: { role: "assistant", content: [{ text: "hello" }] } },
      stopReason: "end_turn",
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      metrics: { latencyMs: 1 },
    });
    client = createBedrockRuntimeClient();

    // Act
    const output = await client.send(new ConverseCommand(converseInput));

    // Assess
    expect(output.output?.message?.content).toEqual([{ text: "hello" }]);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.[":method"]).toBe("POST");
    expect(requests[0]?.[":path"]).toBe(`/model/${encodeURIComponent("scripted:demo")}/converse`);
  });

  it("calls the target a caller outside a sandbox names, over the environment's endpoint and region", async () => {
    // Prepare: the environment names an endpoint nothing listens on
    respond = reply(200, {
      output: { message: { role: "assistant", content: [{ text: "from the target" }] } },
      stopReason: "end_turn",
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      metrics: { latencyMs: 1 },
    });
    const target = { endpoint: process.env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME ?? "", region: "us-west-2" };
    vi.stubEnv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "http://127.0.0.1:9");
    client = createBedrockRuntimeClient({
      target: { ...target, credentials: { accessKeyId: "local", secretAccessKey: "local" } },
    });

    // Act
    const output = await client.send(new ConverseCommand(converseInput));

    // Assess: the request reached the target, signed for its region with its credentials
    expect(output.output?.message?.content).toEqual([{ text: "from the target" }]);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.authorization).toContain("Credential=local/");
    expect(requests[0]?.authorization).toContain("/us-west-2/bedrock/aws4_request");
  });

  it("tries once and leaves retries to Step Functions", async () => {
    // Prepare: a 503 the SDK would otherwise retry up to twice more
    respond = reply(503, { message: "try later" }, "ServiceUnavailableException");
    client = createBedrockRuntimeClient();

    // Act
    const error = await client.send(new ConverseCommand(converseInput)).catch((caught: unknown) => caught);

    // Assess
    expect(toModelError(error).toErrorObject()).toEqual({
      name: "ServiceUnavailableException",
      message: "try later",
      retryable: true,
    });
    expect(requests).toHaveLength(1);
  });

  it("keeps an unmodelled error type from the endpoint as the error's name", async () => {
    // Prepare: how the local fixture endpoint reports a role that ran out of scripted turns
    respond = reply(400, { message: "no turn 2 for role plan" }, "FixtureExhausted");
    client = createBedrockRuntimeClient();

    // Act
    const error = await client.send(new ConverseCommand(converseInput)).catch((caught: unknown) => caught);

    // Assess
    expect(toModelError(error).toErrorObject()).toEqual({
      name: "FixtureExhausted",
      message: "no turn 2 for role plan",
      retryable: false,
    });
  });

  it("fails a call with no response within the request timeout as a retryable ModelRequestTimeout", async () => {
    // Prepare: the endpoint accepts the stream and never answers
    respond = () => {};
    client = createBedrockRuntimeClient({ requestTimeoutMs: 200 });

    // Act
    const error = await client.send(new ConverseCommand(converseInput)).catch((caught: unknown) => caught);

    // Assess
    const modelError = toModelError(error);
    expect(modelError.name).toBe("ModelRequestTimeout");
    expect(modelError.retryable).toBe(true);
    expect(requests).toHaveLength(1);
  });
});
