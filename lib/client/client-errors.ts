import type { ApiErrorBody } from "../../lambdas/handlers/api/contract/response-schemas";

/**
 * The API answered with an error (`{error: {code, message, …}}`). `code` is the API's stable code
 * (docs/api.md lists them); each family has its own class so a caller can `instanceof` it, and
 * `body` keeps every field the error carried (issues, the approval as it stands, the goal's status).
 */
export class GoalLoopsApiError extends Error {
  override readonly name: string = "GoalLoopsApiError";
  readonly code: string;

  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
    options?: { cause?: unknown },
  ) {
    super(`${status} ${body.code}${body.message ? `: ${body.message}` : ""}`, options);
    this.code = body.code;
  }
}

/** 400 `ValidationError`: `issues` names every bad field (`successChecks.0.verify`). */
export class ApiValidationError extends GoalLoopsApiError {
  override readonly name = "ApiValidationError";
  get issues() {
    return this.body.issues ?? [];
  }
}

/** 404: the goal, approval or route does not exist, or is another tenant's (never 403). */
export class NotFoundApiError extends GoalLoopsApiError {
  override readonly name = "NotFoundApiError";
}

/** 409 `InvalidStatus`: the goal's status does not allow it (resume a goal that is not paused). */
export class InvalidStatusApiError extends GoalLoopsApiError {
  override readonly name = "InvalidStatusApiError";
}

/** 409 `ApprovalAlreadyDecided` (someone decided first) or 410 `ApprovalExpired`: `body.approval` says how. */
export class ApprovalClosedApiError extends GoalLoopsApiError {
  override readonly name = "ApprovalClosedApiError";
}

/** 429 after the client's retries: the caller's rate or stream limit. */
export class ThrottledApiError extends GoalLoopsApiError {
  override readonly name = "ThrottledApiError";
}

/** 5xx after the client's retries (`requestId` in the body names the server's log line). */
export class ServerApiError extends GoalLoopsApiError {
  override readonly name = "ServerApiError";
}

/** The answer did not match the document (an older client against a newer API, or a proxy's page). */
export class UnexpectedAnswerError extends Error {
  override readonly name = "UnexpectedAnswerError";
}

/** The error class for an answer: by code first, then by status. */
export function apiErrorFor(status: number, body: ApiErrorBody): GoalLoopsApiError {
  switch (body.code) {
    case "ValidationError":
      return new ApiValidationError(status, body);
    case "InvalidStatus":
      return new InvalidStatusApiError(status, body);
    case "ApprovalAlreadyDecided":
    case "ApprovalExpired":
      return new ApprovalClosedApiError(status, body);
  }
  if (status === 404) return new NotFoundApiError(status, body);
  if (status === 429) return new ThrottledApiError(status, body);
  if (status >= 500) return new ServerApiError(status, body);
  return new GoalLoopsApiError(status, body);
}
