import { GoalLoopsError } from "../../core/goal/errors";

/**
 * A stored item failed its schema on the way out: written by another version of the code, edited by
 * hand, or a broken event log. Never retried; never cast through.
 */
export class CorruptStoreItemError extends GoalLoopsError {
  override readonly name = "CorruptStoreItemError";
}

/** DynamoDB throttled, failed on its side, or could not be reached. Repeating the step may succeed. */
export class GoalStoreUnavailableError extends GoalLoopsError {
  override readonly name = "GoalStoreUnavailableError";
  override readonly retryable = true;
}

/** DynamoDB rejected a request no retry fixes (missing table, access denied, item too large …). */
export class GoalStoreBackendError extends GoalLoopsError {
  override readonly name = "GoalStoreBackendError";
}

/** The SDK error names DynamoDB uses for throttling and its own failures. */
const RETRYABLE_ERROR_NAMES: ReadonlySet<string> = new Set([
  "ProvisionedThroughputExceededException",
  "RequestLimitExceeded",
  "ThrottlingException",
  "InternalServerError",
  "ServiceUnavailable",
]);

interface SdkErrorShape {
  readonly name?: unknown;
  readonly $fault?: unknown;
}

function errorName(error: unknown): string {
  const name = typeof error === "object" && error !== null ? (error as SdkErrorShape).name : undefined;
  return typeof name === "string" ? name : "UnknownError";
}

/** Whether DynamoDB refused a write or read because its condition expression was false. */
export function isConditionalCheckFailed(error: unknown): boolean {
  return errorName(error) === "ConditionalCheckFailedException";
}

export function isValidationException(error: unknown): boolean {
  return errorName(error) === "ValidationException";
}

/**
 * Wraps an error the store did not expect in a named one, keeping the original as `cause`. Errors
 * the service answered carry `$fault`; transport failures and timeouts do not and count as retryable.
 */
export function toStoreError(error: unknown, operation: string): GoalLoopsError {
  if (error instanceof GoalLoopsError) return error;
  const name = errorName(error);
  const fault = typeof error === "object" && error !== null ? (error as SdkErrorShape).$fault : undefined;
  const retryable = RETRYABLE_ERROR_NAMES.has(name) || fault === "server" || fault === undefined;
  const message = `DynamoDB ${operation} failed: ${name}`;
  return retryable
    ? new GoalStoreUnavailableError(message, { cause: error })
    : new GoalStoreBackendError(message, { cause: error });
}
