import { randomUUID } from "node:crypto";
import http from "node:http";
import { type JsonValue, LOCAL_ENVIRONMENT } from "../shared/cloud-assembly-model";
import { AwsApiError, type LambdaErrorPayload, LambdaFunctionError } from "../shared/errors";
import { parseJson } from "../shared/json";
import { listen } from "../shared/listen";

export interface LambdaEndpoint {
  readonly url: string;
  /** Resolves when no `Event` (asynchronous) invocation is running. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface LambdaEndpointOptions {
  /**
   * Runs a function and answers with its result (a RequestResponse invocation): rejects with a
   * LambdaFunctionError when the function fails or times out, and with an AwsApiError
   * (ResourceNotFoundException) when there is no such function. `LambdaHost.invoke` does this.
   */
  readonly invokeFunction: (functionRef: string, event: JsonValue) => Promise<JsonValue>;
  /**
   * Whether a function exists, so an `Event` or `DryRun` invocation of an unknown one answers
   * ResourceNotFoundException at once, as in AWS.
   * @default - every function exists: an Event invocation of an unknown one fails in the log
   */
  readonly functionExists?: (functionRef: string) => boolean;
  /** Where the failures of `Event` invocations are reported. @default console.log */
  readonly log?: (line: string) => void;
  readonly port?: number;
}

/** Lambda's payload limits: 6 MB each way when invoked synchronously, 1 MB for an Event invocation. */
const MAX_REQUEST_BYTES = 6_291_456;
const MAX_EVENT_REQUEST_BYTES = 1_048_576;
const MAX_RESPONSE_BYTES = 6_291_556;

const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations\/?$/;

/**
 * A function name as Invoke takes it: `name`, `account:function:name` (a partial ARN) or the full
 * ARN, each with an optional `:qualifier`.
 */
const FUNCTION_NAME =
  /^(?:(?:arn:(?<partition>[^:]+):lambda:(?<region>[^:]+):)?(?<account>\d{12}):function:)?(?<name>[A-Za-z0-9_.-]{1,140})(?::(?<qualifier>\$LATEST|[A-Za-z0-9_-]{1,128}))?$/;

const INVOCATION_TYPES = ["RequestResponse", "Event", "DryRun"] as const;
type InvocationType = (typeof INVOCATION_TYPES)[number];

interface Reply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/**
 * AWS Lambda's Invoke (restJson: `POST /2015-03-31/functions/{FunctionName}/invocations`) over the
 * local functions, for functions that call others with `@aws-sdk/client-lambda` through
 * `AWS_ENDPOINT_URL_LAMBDA`. `$LATEST` and the numbered versions the local stack keeps; no aliases.
 *
 * - `RequestResponse` (the default) answers 200 with the function's JSON result; a function that
 *   throws, times out or cannot start answers 200 with `X-Amz-Function-Error: Unhandled` and the
 *   error as the payload (`errorType`, `errorMessage`, `trace`), as Lambda does.
 * - `Event` answers 202 and runs the function in the background; its failure is logged.
 * - `DryRun` answers 204.
 *
 * API errors answer their status with `x-amzn-errortype`, which the SDK raises as an exception of
 * that name (ResourceNotFoundException, InvalidRequestContentException, RequestTooLargeException).
 */
export async function startLambdaEndpoint(options: LambdaEndpointOptions): Promise<LambdaEndpoint> {
  const log = options.log ?? console.log;
  const background = new Set<Promise<void>>();

  const runInBackground = (functionRef: string, event: JsonValue) => {
    // Never rejects: a failure (also one thrown synchronously) is logged, as Lambda has no caller to tell.
    const run = Promise.resolve()
      .then(() => options.invokeFunction(functionRef, event))
      .then(
        () => undefined,
        (error: unknown) => {
          const { errorType, errorMessage } = errorPayloadOf(error);
          log(`lambda: Event invocation of ${functionRef} failed: ${errorType}: ${errorMessage}`);
        },
      );
    background.add(run);
    void run.finally(() => background.delete(run));
  };

  const handle = async (req: http.IncomingMessage, body: Buffer): Promise<Reply> => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const match = INVOKE_PATH.exec(url.pathname);
    if (req.method !== "POST" || !match?.[1]) {
      throw new AwsApiError(
        "UnknownOperationException",
        `the local Lambda endpoint implements Invoke only, not ${req.method} ${url.pathname}`,
        404,
      );
    }
    const functionRef = functionRefOf(decodeURIComponent(match[1]), url.searchParams.get("Qualifier"));
    const invocationType = invocationTypeOf(req.headers["x-amz-invocation-type"]);

    const limit = invocationType === "Event" ? MAX_EVENT_REQUEST_BYTES : MAX_REQUEST_BYTES;
    if (body.length > limit) {
      throw new AwsApiError(
        "RequestTooLargeException",
        `Request must be smaller than ${limit} bytes for the InvokeFunction operation`,
        413,
      );
    }
    const event = parseEvent(body);

    if (invocationType !== "RequestResponse") {
      if (options.functionExists !== undefined && !options.functionExists(functionRef)) {
        throw new AwsApiError("ResourceNotFoundException", `Function not found: ${functionRef}`, 404);
      }
      if (invocationType === "DryRun") return { status: 204 };
      runInBackground(functionRef, event);
      return { status: 202 };
    }

    const executed = { "x-amz-executed-version": "$LATEST" };
    let result: JsonValue;
    try {
      result = await options.invokeFunction(functionRef, event);
    } catch (error) {
      if (!(error instanceof LambdaFunctionError)) throw error;
      return functionErrorReply(error.payload, executed);
    }
    const json = JSON.stringify(result);
    if (Buffer.byteLength(json) > MAX_RESPONSE_BYTES) {
      return functionErrorReply(
        {
          errorType: "Function.ResponseSizeTooLarge",
          errorMessage: `Response payload size exceeded maximum allowed payload size (${MAX_RESPONSE_BYTES} bytes).`,
        },
        executed,
      );
    }
    return { status: 200, headers: { ...executed, "content-type": "application/json" }, body: json };
  };

  const server = http.createServer(async (req, res) => {
    const requestId = randomUUID();
    const send = ({ status, headers = {}, body }: Reply) => {
      res.writeHead(status, { ...headers, "x-amzn-requestid": requestId });
      res.end(body);
    };
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(Buffer.from(chunk));
      send(await handle(req, Buffer.concat(chunks)));
    } catch (error) {
      const apiError =
        error instanceof AwsApiError
          ? error
          : new AwsApiError("ServiceException", error instanceof Error ? error.message : String(error), 500);
      // Lambda's error shapes name the message `Message` or `message`, one or the other: both are sent.
      const body = {
        Type: apiError.statusCode >= 500 ? "Service" : "User",
        Message: apiError.message,
        message: apiError.message,
      };
      if (res.headersSent) {
        res.destroy();
        return;
      }
      send({
        status: apiError.statusCode,
        headers: { "content-type": "application/json", "x-amzn-errortype": apiError.code },
        body: JSON.stringify(body),
      });
    }
  });
  const running = await listen(server, options.port);

  return {
    url: running.url,
    async idle() {
      while (background.size > 0) await Promise.all(background);
    },
    close: () => running.close(),
  };
}

/**
 * What LambdaHost finds the function by: its name, or its ARN when the caller named an account
 * (a partial ARN gets the local region), qualified with a version number when one is asked for.
 */
function functionRefOf(functionName: string, queryQualifier: string | null): string {
  const groups = FUNCTION_NAME.exec(functionName)?.groups;
  if (groups?.name === undefined) {
    throw new AwsApiError(
      "ValidationException",
      `1 validation error detected: Value '${functionName}' at 'functionName' failed to satisfy constraint: ` +
        "Member must be a function name, a partial ARN or an ARN",
    );
  }
  const { partition, region, account, name, qualifier: nameQualifier } = groups;
  if (nameQualifier !== undefined && queryQualifier !== null && nameQualifier !== queryQualifier) {
    throw new AwsApiError(
      "InvalidParameterValueException",
      "The derived qualifier from the function name does not match the specified qualifier.",
    );
  }
  const functionRef =
    account === undefined
      ? name
      : `arn:${partition ?? LOCAL_ENVIRONMENT.partition}:lambda:${region ?? LOCAL_ENVIRONMENT.region}:${account}:function:${name}`;
  const qualifier = nameQualifier ?? queryQualifier ?? "$LATEST";
  if (qualifier === "$LATEST") return functionRef;
  // A published version (a number) the local stack keeps; aliases are not run locally.
  if (!/^\d+$/.test(qualifier)) {
    throw new AwsApiError(
      "ResourceNotFoundException",
      `Function not found: ${functionRef}:${qualifier} (the local runtime runs $LATEST and numbered versions)`,
      404,
    );
  }
  const arn = functionRef.startsWith("arn:")
    ? functionRef
    : `arn:${LOCAL_ENVIRONMENT.partition}:lambda:${LOCAL_ENVIRONMENT.region}:${LOCAL_ENVIRONMENT.account}:function:${name}`;
  return `${arn}:${qualifier}`;
}

function invocationTypeOf(header: string | string[] | undefined): InvocationType {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === "") return "RequestResponse";
  const type = INVOCATION_TYPES.find((known) => known === value);
  if (type === undefined) {
    throw new AwsApiError(
      "ValidationException",
      `1 validation error detected: Value '${value}' at 'invocationType' failed to satisfy constraint: ` +
        `Member must satisfy enum value set: [${INVOCATION_TYPES.join(", ")}]`,
    );
  }
  return type;
}

/** The event: the body's JSON, `{}` when there is none. */
function parseEvent(body: Buffer): JsonValue {
  const text = body.toString("utf8");
  if (text.trim() === "") return {};
  try {
    return parseJson(text);
  } catch (error) {
    throw new AwsApiError(
      "InvalidRequestContentException",
      `Could not parse request body into json: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** A failed invocation as Lambda answers it: 200, `X-Amz-Function-Error`, the error as payload. */
function functionErrorReply(payload: LambdaErrorPayload, headers: Readonly<Record<string, string>>): Reply {
  const { errorType, errorMessage, trace } = payload;
  return {
    status: 200,
    headers: { ...headers, "content-type": "application/json", "x-amz-function-error": "Unhandled" },
    body: JSON.stringify({ errorType, errorMessage, ...(trace === undefined ? {} : { trace }) }),
  };
}

function errorPayloadOf(error: unknown): LambdaErrorPayload {
  if (error instanceof LambdaFunctionError) return error.payload;
  if (error instanceof AwsApiError) return { errorType: error.code, errorMessage: error.message };
  if (error instanceof Error) return { errorType: error.name, errorMessage: error.message };
  return { errorType: "Error", errorMessage: String(error) };
}
