import { MODEL_THROTTLED, ModelFatalError, ModelRetryableError } from "../../core/ports/model-client";

/** Bedrock's rate limit: the capacity governor turns it into a wait (models/capacity). */
export const THROTTLING_ERROR = MODEL_THROTTLED;

/**
 * Bedrock exceptions a later attempt may get past; the thrown error keeps the SDK's name.
 * `ModelNotReadyException` carries the SDK's own retryable trait (the model is being loaded).
 * `ModelErrorException` (HTTP 424) is the model failing while it processed a valid request, and
 * Bedrock's message for it says to try again; the state machine's retry budget bounds the cost.
 */
const RETRYABLE_BEDROCK_EXCEPTIONS = [
  THROTTLING_ERROR,
  "ModelTimeoutException",
  "ServiceUnavailableException",
  "InternalServerException",
  "ModelNotReadyException",
  "ModelErrorException",
] as const;

/**
 * No SDK exception: the HTTP/2 stream saw no activity for the client's request timeout
 * (the handler throws a plain `TimeoutError`, too generic a name to put in a state machine).
 */
export const MODEL_REQUEST_TIMEOUT = "ModelRequestTimeout";
/** No SDK exception: the connection failed or was reset (a Node.js error `code`, see below). */
export const MODEL_CONNECTION_ERROR = "ModelConnectionError";

/** Every retryable name `toModelError` throws: the model step's Step Functions `Retry.ErrorEquals`. */
export const RETRYABLE_MODEL_ERRORS = [
  ...RETRYABLE_BEDROCK_EXCEPTIONS,
  MODEL_REQUEST_TIMEOUT,
  MODEL_CONNECTION_ERROR,
] as const;
export type RetryableModelErrorName = (typeof RETRYABLE_MODEL_ERRORS)[number];

/** The local fixture endpoint's error for a call past the end of a role's scripted turns. */
export const FIXTURE_EXHAUSTED = "FixtureExhausted";

/**
 * Bedrock exceptions no retry fixes: a request the service rejects, no model access, an unknown
 * model. `ServiceQuotaExceededException` is an account quota, not a rate: waiting seconds won't
 * lift it. `FixtureExhausted` comes from the local fixture endpoint (DESIGN §6, "Model fixtures")
 * and keeps its name so a test that ran out of scripted turns says so.
 */
const FATAL_ENDPOINT_ERRORS = [
  "ValidationException",
  "AccessDeniedException",
  "ResourceNotFoundException",
  "ServiceQuotaExceededException",
  FIXTURE_EXHAUSTED,
] as const;

/** The call succeeded but its output does not fit a ModelTurn (no message, an unknown stop reason). */
export const MALFORMED_MODEL_RESPONSE = "MalformedModelResponse";
/** Anything not named above; the original error is the `cause` and its name is in the message. */
export const UNKNOWN_MODEL_ERROR = "UnknownModelError";

/** Every fatal name the Bedrock model client throws (never retried; a `Catch` may match them). */
export const FATAL_MODEL_ERRORS = [
  ...FATAL_ENDPOINT_ERRORS,
  MALFORMED_MODEL_RESPONSE,
  UNKNOWN_MODEL_ERROR,
] as const;
export type FatalModelErrorName = (typeof FATAL_MODEL_ERRORS)[number];

/**
 * Node.js socket and HTTP/2 error codes worth another attempt: the SDK's own transient list
 * (`@smithy/core` service-error-classification) plus HTTP/2 session and stream failures.
 */
const CONNECTION_ERROR_CODES: ReadonlySet<string> = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ERR_HTTP2_GOAWAY_SESSION",
  "ERR_HTTP2_SESSION_ERROR",
  "ERR_HTTP2_STREAM_ERROR",
]);

const RETRYABLE_NAMES: ReadonlySet<string> = new Set(RETRYABLE_BEDROCK_EXCEPTIONS);
const FATAL_NAMES: ReadonlySet<string> = new Set(FATAL_ENDPOINT_ERRORS);

/**
 * Maps whatever the Bedrock client threw to a model error whose `name` Step Functions matches on.
 * An error that already is a model error is returned unchanged.
 */
export function toModelError(error: unknown): ModelRetryableError | ModelFatalError {
  if (error instanceof ModelRetryableError || error instanceof ModelFatalError) return error;
  const name = stringProperty(error, "name");
  const code = stringProperty(error, "code");
  const message = error instanceof Error ? error.message : String(error);
  const options = { cause: error };

  if (name !== undefined && RETRYABLE_NAMES.has(name)) return new ModelRetryableError(name, message, options);
  if (name !== undefined && FATAL_NAMES.has(name)) return new ModelFatalError(name, message, options);
  if (name === "TimeoutError") {
    return new ModelRetryableError(MODEL_REQUEST_TIMEOUT, `Bedrock request timed out: ${message}`, options);
  }
  if (code !== undefined && CONNECTION_ERROR_CODES.has(code)) {
    return new ModelRetryableError(
      MODEL_CONNECTION_ERROR,
      `Bedrock connection failed (${code}): ${message}`,
      options,
    );
  }
  return new ModelFatalError(UNKNOWN_MODEL_ERROR, `${name ?? typeof error}: ${message}`, options);
}

function stringProperty(value: unknown, key: "name" | "code"): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const property: unknown = Reflect.get(value, key);
  return typeof property === "string" ? property : undefined;
}
