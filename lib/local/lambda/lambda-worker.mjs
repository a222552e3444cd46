// One Lambda sandbox: a worker thread whose process.env is the function's own. It loads the
// handler once (the cold start) and then runs one invocation at a time, like a Lambda sandbox.
import { Writable } from "node:stream";
import { finished } from "node:stream/promises";
import { parentPort, workerData } from "node:worker_threads";
import { loadHandler } from "./load-handler.mjs";

const spec = workerData;

// NODE_OPTIONS is not read by worker threads; honour the one flag bundles commonly set.
if ((process.env.NODE_OPTIONS ?? "").includes("--enable-source-maps")) process.setSourceMapsEnabled(true);

// The `awslambda` global of the Node.js Lambda runtime, for handlers that stream their response
// (aws-lambda-nodejs-runtime-interface-client: UserFunction.js and HttpResponseStream.js).
const HANDLER_STREAMING = Symbol.for("aws.lambda.runtime.handler.streaming");
const HTTP_INTEGRATION_RESPONSE = "application/vnd.awslambda.http-integration-response";
globalThis.awslambda = {
  streamifyResponse(handler) {
    handler[HANDLER_STREAMING] = "response";
    return handler;
  },
  HttpResponseStream: {
    // The prelude (JSON metadata, then 8 NUL bytes) goes out before the first byte of the body.
    from(stream, prelude) {
      stream.setContentType(HTTP_INTEGRATION_RESPONSE);
      const metadata = JSON.stringify(prelude);
      stream._onBeforeFirstWrite = (write) => {
        write(metadata);
        write(new Uint8Array(8));
      };
      return stream;
    },
  },
};

const toErrorPayload = (error) => ({
  errorType: typeof error?.name === "string" && error.name !== "" ? error.name : "Error",
  errorMessage: String(error?.message ?? error),
  trace: String(error?.stack ?? "")
    .split("\n")
    .filter(Boolean),
});

/** The response stream a streaming handler writes to: each chunk goes to the parent as it comes. */
function responseStream(id) {
  let first = true;
  const send = (chunk) => {
    const data = typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk);
    parentPort.postMessage({ type: "chunk", id, data: new Uint8Array(data) });
  };
  const beforeFirst = (stream) => {
    if (!first) return;
    first = false;
    stream._onBeforeFirstWrite?.(send);
  };
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      beforeFirst(stream);
      send(chunk);
      callback();
    },
    final(callback) {
      beforeFirst(stream);
      callback();
    },
  });
  stream.setContentType = (contentType) => {
    stream.contentType = contentType;
  };
  return stream;
}

let handler;
try {
  handler = await loadHandler(spec.assetDir, spec.handler);
  parentPort.postMessage({ type: "ready" });
} catch (error) {
  parentPort.postMessage({ type: "init-error", error: toErrorPayload(error) });
}

/** The response stream of the invocation in flight, so the parent can close it (client gone). */
let inFlightStream;

parentPort.on("message", async (message) => {
  if (message.type === "abort") {
    if (inFlightStream?.id === message.id) inFlightStream.stream.destroy();
    return;
  }
  if (message.type !== "invoke" || handler === undefined) return;
  const context = {
    awsRequestId: message.requestId,
    functionName: spec.functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: spec.arn,
    memoryLimitInMB: String(spec.memoryMb),
    logGroupName: `/aws/lambda/${spec.functionName}`,
    logStreamName: "local",
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, message.deadline - Date.now()),
  };
  try {
    if (message.stream) {
      if (handler[HANDLER_STREAMING] !== "response") {
        throw Object.assign(new Error("the handler is not wrapped in awslambda.streamifyResponse"), {
          name: "Runtime.InvalidStreamingOperation",
        });
      }
      const stream = responseStream(message.id);
      inFlightStream = { id: message.id, stream };
      await handler(message.event, stream, context);
      if (!stream.writableEnded && !stream.destroyed) stream.end();
      await finished(stream).catch(() => undefined);
      inFlightStream = undefined;
      parentPort.postMessage({ type: "result", id: message.id, ok: true, json: "null" });
      return;
    }
    const result = await handler(message.event, context);
    // Lambda answers with the JSON serialization of the result; undefined becomes null.
    const json = result === undefined ? "null" : (JSON.stringify(result) ?? "null");
    parentPort.postMessage({ type: "result", id: message.id, ok: true, json });
  } catch (error) {
    inFlightStream = undefined;
    parentPort.postMessage({ type: "result", id: message.id, ok: false, error: toErrorPayload(error) });
  }
});
