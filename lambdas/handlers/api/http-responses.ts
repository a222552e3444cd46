import type { APIGatewayProxyResult } from "aws-lambda";
import {
  EXECUTION_START_THROTTLED,
  ExecutionStartError,
} from "../../adapters/step-functions/execution-start-error";
import { GoalLoopsError, ValidationError, type ValidationIssue } from "../../core/goal/errors";
import { McpServerUnavailableError } from "../../core/intake/freeze-mcp-tools";
import { IdempotencyKeyReusedError } from "../../core/intake/goal-intake";
import { StartLimitError } from "../../core/tenants/start-pace";
import { InvalidStatusError, PatternUnavailableError } from "./api-errors";

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" } as const;

/** A JSON answer. */
export function json(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

export interface ErrorBody {
  /** Stable and documented: clients branch on it. */
  readonly code: string;
  readonly message: string;
  readonly issues?: readonly ValidationIssue[];
  readonly [detail: string]: unknown;
}

/** The one error shape of the API: `{error: {code, message, …}}`. */
export function errorJson(
  statusCode: number,
  error: ErrorBody,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return json(statusCode, { error }, headers);
}

interface KnownError {
  readonly statusCode: number;
  readonly code: string;
  /** Replaces the error's own message when that names internals (backend errors). */
  readonly message?: string;
  readonly headers?: Record<string, string>;
}

/**
 * Named errors the API answers on purpose, by `name` (the stable contract of GoalLoopsError). The
 * code drops the `Error` suffix: it names what happened, not the class.
 */
/** Both names of ExecutionStartError (retryable or not) answer the same to an API caller. */
const EXECUTION_START_FAILED = {
  statusCode: 502,
  code: "ExecutionStartFailed",
  message: "the goal was stored but Step Functions did not start its run",
};

const KNOWN_ERRORS: Readonly<Record<string, KnownError>> = {
  ValidationError: { statusCode: 400, code: "ValidationError" },
  PatternUnavailableError: { statusCode: 400, code: "PatternUnavailable" },
  DirectiveError: { statusCode: 400, code: "DirectiveError" },
  InvalidStatusError: { statusCode: 409, code: "InvalidStatus" },
  // A revision for a goal that became final between the read and the dry run.
  GoalStatusError: { statusCode: 409, code: "InvalidStatus" },
  HumanInputPublishError: {
    statusCode: 503,
    code: "ServiceUnavailable",
    message: "the event bus did not take the request; retry it",
    headers: { "retry-after": "1" },
  },
  MissingCallerIdentityError: { statusCode: 401, code: "MissingCallerIdentity" },
  // A signed-in caller whose tenant this deployment does not serve (tenants.known, tenants.iam).
  UnknownTenant: { statusCode: 403, code: "UnknownTenant" },
  // An operator's route (POST /tenants/{id}/limits) asked by anyone else.
  Forbidden: { statusCode: 403, code: "Forbidden" },
  // POST /goals over the tenant's startsPerMinute: nothing was stored (Retry-After from the error).
  TenantStartLimit: { statusCode: 429, code: "TenantStartLimit" },
  GoalNotFoundError: { statusCode: 404, code: "GoalNotFound" },
  IdempotencyKeyReusedError: { statusCode: 422, code: "IdempotencyKeyReused" },
  ExecutionStartError: EXECUTION_START_FAILED,
  [EXECUTION_START_THROTTLED]: EXECUTION_START_FAILED,
  // A GoalSpec granted tools of an MCP server that could not list them: nothing was stored.
  McpServerUnavailableError: { statusCode: 502, code: "McpServerUnavailable" },
  McpGatewayFailed: { statusCode: 502, code: "McpGatewayFailed" },
  // A record a newer goal-loops wrote: this API does not guess what it means, and writes nothing.
  RecordSchemaTooNew: { statusCode: 409, code: "RecordSchemaTooNew" },
  // A fork the live version could not run (a rollback across a record schema): nothing was made.
  ForkTargetTooOld: { statusCode: 409, code: "ForkTargetTooOld" },
  // Step Functions did not say which version a new goal starts on: nothing was stored.
  VersionLookupError: {
    statusCode: 503,
    code: "VersionUnavailable",
    message: "Step Functions did not say which deployed version to start on; nothing was stored, retry",
    headers: { "retry-after": "1" },
  },
  // Step Functions did not answer a runs read (throttling, access denied): the goal itself is fine.
  RunHistoryError: { statusCode: 502, code: "RunHistoryUnavailable" },
  // A fork whose source's workspace lost a file version the fork point names: nothing was created.
  ForkSourceIncompleteError: { statusCode: 409, code: "ForkSourceIncomplete" },
  HistoryUnavailableError: {
    statusCode: 503,
    code: "ServiceUnavailable",
    message: "this deployment keeps no goal history for the API (steps, fork, replay)",
  },
  TenantsUnavailable: {
    statusCode: 503,
    code: "ServiceUnavailable",
    message: "this deployment keeps no tenant items for the API (GET /tenants/me, POST /tenants/{id}/limits)",
  },
  GoalStoreUnavailableError: {
    statusCode: 503,
    code: "ServiceUnavailable",
    message: "the goal store is unavailable; retry the request",
    headers: { "retry-after": "1" },
  },
};

/** Fields a named error adds to its answer: the bad fields, the goal or the pattern it is about. */
function detailsOf(error: GoalLoopsError): Record<string, unknown> {
  if (error instanceof ValidationError) return { issues: error.issues };
  if (error instanceof PatternUnavailableError) return { pattern: error.pattern };
  if (error instanceof McpServerUnavailableError) return { server: error.server, reason: error.reason.name };
  if (error instanceof InvalidStatusError) return { goalId: error.goalId, status: error.status };
  if (error instanceof StartLimitError) {
    return { limit: error.limit, tenantId: error.tenantId, retryAfterSeconds: error.retryAfterSeconds };
  }
  if (error instanceof ExecutionStartError || error instanceof IdempotencyKeyReusedError) {
    return { goalId: error.goalId };
  }
  return {};
}

/** The answer for an error the API knows by name, or undefined for an unexpected one (a 500). */
export function knownErrorResponse(error: unknown): APIGatewayProxyResult | undefined {
  if (!(error instanceof GoalLoopsError)) return undefined;
  const known = KNOWN_ERRORS[error.name];
  if (!known) return undefined;
  const body = { code: known.code, message: known.message ?? error.message, ...detailsOf(error) };
  const retryAfter =
    error instanceof StartLimitError ? { "retry-after": String(error.retryAfterSeconds) } : undefined;
  return errorJson(known.statusCode, body, { ...known.headers, ...retryAfter });
}

/** An unexpected failure: nothing of the exception reaches the caller, only a request id to quote. */
export function internalError(requestId: string): APIGatewayProxyResult {
  return errorJson(500, { code: "InternalError", message: "internal error", requestId });
}
