// One Lambda sandbox: a worker thread whose process.env is the function's own. It loads the
// handler once (the cold start) and then runs one invocation at a time, like a Lambda sandbox.
import { parentPort, workerData } from "node:worker_threads";
import { loadHandler } from "./load-handler.mjs";

const spec = workerData;

// NODE_OPTIONS is not read by worker threads; honour the one flag bundles commonly set.
if ((process.env.NODE_OPTIONS ?? "").includes("--enable-source-maps")) process.setSourceMapsEnabled(true);

const toErrorPayload = (error) => ({
  errorType: typeof error?.name === "string" && error.name !== "" ? error.name : "Error",
  errorMessage: String(error?.message ?? error),
  trace: String(error?.stack ?? "")
    .split("\n")
    .filter(Boolean),
});

let handler;
try {
  handler = await loadHandler(spec.assetDir, spec.handler);
  parentPort.postMessage({ type: "ready" });
} catch (error) {
  parentPort.postMessage({ type: "init-error", error: toErrorPayload(error) });
}

parentPort.on("message", async (message) => {
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
    const result = await handler(message.event, context);
    // Lambda answers with the JSON serialization of the result; undefined becomes null.
    const json = result === undefined ? "null" : (JSON.stringify(result) ?? "null");
    parentPort.postMessage({ type: "result", id: message.id, ok: true, json });
  } catch (error) {
    parentPort.postMessage({ type: "result", id: message.id, ok: false, error: toErrorPayload(error) });
  }
});
