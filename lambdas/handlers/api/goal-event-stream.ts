import type { Writable } from "node:stream";
import { Logger } from "@aws-lambda-powertools/logger";
import type { APIGatewayProxyEvent, StreamifyHandler } from "aws-lambda";
import { DynamoDbGoalStore } from "../../adapters/dynamodb/dynamodb-goal-store";
import { DynamoDbStreamLeases } from "../../adapters/dynamodb/limits/dynamodb-stream-leases";
import { goalEventWaiterFromEnv } from "../../adapters/event-waiters/goal-event-waiter-from-env";
import { createDocumentClient } from "../../adapters/goal-store-adapters";
import { positiveIntEnv, requiredEnv } from "../handler-environment";
import { tenantsSettingsFromEnv } from "../tenants-from-env";
import { type StreamSink, streamGoalEvents } from "./event-stream";

/**
 * `GET /goals/{goalId}/stream` (API Gateway REST, response transfer mode STREAM): a function of
 * its own so the goals API stays buffered, and so open streams never hold the API's concurrency.
 * It only reads the goal store.
 */
const logger = new Logger();
const client = createDocumentClient();
const tableName = requiredEnv("GOAL_TABLE_NAME");
const store = new DynamoDbGoalStore({ client, tableName });
const maxOpen = positiveIntEnv("MAX_OPEN_STREAMS", 0);
const deps = {
  store,
  waiter: goalEventWaiterFromEnv(process.env),
  now: () => new Date(),
  logger,
  tenants: tenantsSettingsFromEnv(),
  // api.stream.maxOpen: each open stream holds one concurrent execution of this function.
  ...(maxOpen > 0 ? { openStreams: { leases: new DynamoDbStreamLeases(client, tableName), maxOpen } } : {}),
};

/** The Lambda response stream as a sink: status and headers go in the HTTP integration prelude. */
function lambdaSink(responseStream: Writable): StreamSink {
  let stream: Writable = responseStream;
  const closed = new AbortController();
  responseStream.on("close", () => closed.abort());
  responseStream.on("error", () => closed.abort());
  return {
    open: (statusCode, headers) => {
      stream = awslambda.HttpResponseStream.from(responseStream, { statusCode, headers });
    },
    write: (text) =>
      new Promise<void>((resolve) => {
        if (closed.signal.aborted) return resolve();
        if (stream.write(text)) return resolve();
        // A stream closed while full never drains: closing ends the wait too.
        stream.once("drain", () => resolve());
        closed.signal.addEventListener("abort", () => resolve(), { once: true });
      }),
    end: () =>
      new Promise<void>((resolve) => {
        // A stream the client closed is destroyed: ending it would never call back.
        if (closed.signal.aborted || stream.destroyed) return resolve();
        stream.end(() => resolve());
      }),
    closed: closed.signal,
  };
}

const streamHandler: StreamifyHandler<APIGatewayProxyEvent, void> = async (
  event,
  responseStream,
  context,
) => {
  await streamGoalEvents(deps, event, lambdaSink(responseStream), () => context.getRemainingTimeInMillis());
};

/**
 * The runtime's `awslambda.streamifyResponse` exists only inside the Lambda runtime (and the local
 * Lambda host's stand-in). Read through `globalThis` so that importing the bundle anywhere else (the
 * bench's cold-import probe, a plain `node` process) loads it instead of throwing. The global alone
 * proves nothing: the SDK's @aws/lambda-invoke-store creates `globalThis.awslambda` everywhere.
 */
const streamify = (globalThis as { awslambda?: Partial<typeof awslambda> }).awslambda?.streamifyResponse;

/** Outside Lambda the handler exists but refuses to run: it has no response stream to write to. */
const outsideLambda: StreamifyHandler<APIGatewayProxyEvent, void> = () => {
  throw new Error("goal-event-stream runs only inside the Lambda runtime: the awslambda global is missing");
};

export const handler = streamify ? streamify(streamHandler) : outsideLambda;
