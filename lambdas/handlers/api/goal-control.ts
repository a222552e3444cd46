import type { APIGatewayProxyResult } from "aws-lambda";
import { ValidationError } from "../../core/goal/errors";
import type { GoalRecord } from "../../core/goal/goal-record";
import { isFinal } from "../../core/goal/goal-status";
import { PAUSABLE_STATUSES } from "../../core/goal/human-pause";
import { LimitsPatchSchema } from "../../core/goal/limits";
import { queueRevision, RevisionInputSchema } from "../../core/goal/revisions";
import { toSnapshot } from "../../core/goal/snapshot";
import { parseOrThrow } from "../../core/goal/validation";
import { parseDirective } from "../../core/human/directive";
import { HUMAN_INPUT_DETAIL_TYPES } from "../../core/human/human-input-events";
import { raiseLimits } from "../../core/human/raise-limits";
import { InvalidStatusError } from "./api-errors";
import { OPERATIONS } from "./contract/operations";
import { DirectiveBodySchema, type ReasonBody, ReasonBodySchema } from "./contract/request-schemas";
import { tenantGoal } from "./get-goals";
import type { GoalsApiDeps } from "./goals-api-deps";
import { json } from "./http-responses";
import { parseJsonBody } from "./request-body";
import { type ApiRequest, type Route, route } from "./routes";

/**
 * Checks a revision exactly as the resume handler will queue it (the same core function, on the
 * goal as it is now, nothing stored) so a bad one is a 400 with the field paths, then publishes
 * `Revision Requested`. The resume handler queues it; it is applied at the run's next step boundary.
 */
async function requestRevision(
  deps: GoalsApiDeps,
  request: ApiRequest,
  goal: GoalRecord,
  body: unknown,
): Promise<APIGatewayProxyResult> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ValidationError("A revision must be a JSON object", [
      { path: "", message: "expected an object" },
    ]);
  }
  if (isFinal(goal.status)) {
    throw new InvalidStatusError(
      goal.goalId,
      goal.status,
      `goal is ${goal.status}; a revision needs a goal that is not final`,
    );
  }
  const revisionId = deps.newRevisionId();
  const now = deps.now();
  const input = parseOrThrow(RevisionInputSchema, { ...body, requestedBy: request.caller }, "revision");
  const dryRun = queueRevision(goal, input, { revisionId, now });
  const queued = dryRun.record.inbox.find((item) => item.revisionId === revisionId);
  if (!queued) throw new Error(`revision ${revisionId} was not queued by the dry run`);
  await deps.publisher.publish({
    detailType: HUMAN_INPUT_DETAIL_TYPES.revisionRequested,
    detail: {
      goalId: goal.goalId,
      revisionId,
      type: queued.type,
      content: queued.content,
      requestedBy: queued.requestedBy,
      channel: "api",
      requestedAt: queued.requestedAt,
      ...(queued.successChecks === undefined ? {} : { successChecks: queued.successChecks }),
      ...(queued.reason === undefined ? {} : { reason: queued.reason }),
      ...(queued.target === undefined ? {} : { target: queued.target }),
    },
  });
  deps.logger.info("revision requested", { goalId: goal.goalId, revisionId, revisionType: queued.type });
  return json(202, { goalId: goal.goalId, revisionId });
}

/**
 * `POST /goals/{goalId}/revisions` `{type, content, successChecks?, reason?, target?}` → 202
 * `{revisionId}`; `target: {fromStep: N}` (or `{step: N}`) on a corrective revision undoes step N
 * and every later one.
 */
async function postRevision(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const body = parseJsonBody(request.body);
  const goal = await tenantGoal(deps, request);
  return requestRevision(deps, request, goal, body);
}

/**
 * `POST /goals/{goalId}/directive` `{text}`: the `/goal` directive. `status` answers the snapshot;
 * `add-constraint <text>` and `redirect <text> [--check …]` request a revision; anything else is a 400
 * DirectiveError naming what was wrong and the valid forms.
 */
async function postDirective(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const { text } = parseOrThrow(DirectiveBodySchema, parseJsonBody(request.body), "directive");
  const goal = await tenantGoal(deps, request);
  const directive = parseDirective(text);
  if (directive.kind === "status") return json(200, toSnapshot(goal));
  return requestRevision(deps, request, goal, {
    type: directive.kind,
    content: directive.text,
    ...(directive.kind === "redirect" && directive.checks ? { successChecks: directive.checks } : {}),
  });
}

/**
 * `POST /goals/{goalId}/pause` `{reason?}`: 202 for a running or waiting goal (`Pause Requested`
 * published); the loop pauses it at its next step boundary, a waiting goal once its wait is over.
 * Asked again before it took effect: 202 again, nothing changes. 409 for any other status.
 */
async function postPause(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const body = optionalReasonBody(request, "pause");
  const goal = await tenantGoal(deps, request);
  if (!PAUSABLE_STATUSES.includes(goal.status)) {
    throw new InvalidStatusError(
      goal.goalId,
      goal.status,
      `goal is ${goal.status}; pause needs running or waiting`,
    );
  }
  return requestControl(deps, request, goal, "pause", body.reason);
}

/**
 * `POST /goals/{goalId}/resume`: 202 for a paused goal (`Resume Requested` published), and for a
 * running or waiting goal whose pause request has not taken effect yet (the request is withdrawn);
 * else 409.
 */
async function postResume(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const goal = await tenantGoal(deps, request);
  const withdraws = goal.pauseRequest !== undefined && PAUSABLE_STATUSES.includes(goal.status);
  if (goal.status !== "paused" && !withdraws) {
    throw new InvalidStatusError(goal.goalId, goal.status, `goal is ${goal.status}; resume needs paused`);
  }
  return requestControl(deps, request, goal, "resume");
}

/** `POST /goals/{goalId}/retry`: 202 for a failed goal (`Retry Requested` published), else 409. */
async function postRetry(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const goal = await tenantGoal(deps, request);
  if (goal.status !== "failed") {
    throw new InvalidStatusError(goal.goalId, goal.status, `goal is ${goal.status}; retry needs failed`);
  }
  return requestControl(deps, request, goal, "retry");
}

/**
 * `POST /goals/{goalId}/limits` `{maxCostUsd?, maxSteps?, deadline?, maxReplans?, maxAttempts?,
 * maxNoProgressCycles?}`: 200 `{goalId, limits}`; raises a limit without waiting to be asked, and
 * answers a limit decision the goal waits on (see `raiseLimits`). 409 for a final goal.
 */
async function postLimits(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const patch = parseOrThrow(LimitsPatchSchema, parseJsonBody(request.body), "limits");
  const goal = await tenantGoal(deps, request);
  if (isFinal(goal.status)) {
    throw new InvalidStatusError(
      goal.goalId,
      goal.status,
      `goal is ${goal.status}; limits change only on a goal that is not final`,
    );
  }
  const limits = await raiseLimits(
    {
      goals: deps.store,
      publisher: deps.publisher,
      now: deps.now,
      ...(deps.deadlines ? { deadlines: deps.deadlines } : {}),
    },
    { goalId: goal.goalId, patch, by: request.caller, channel: "api" },
  );
  deps.logger.info("limits changed", { goalId: goal.goalId, changed: Object.keys(patch) });
  return json(200, { goalId: goal.goalId, limits });
}

function optionalReasonBody(request: ApiRequest, label: string): ReasonBody {
  return request.body === undefined || request.body.trim() === ""
    ? {}
    : parseOrThrow(ReasonBodySchema, parseJsonBody(request.body), label);
}

/** `POST /goals/{goalId}/cancel` `{reason?}`: 202 for a goal that is not final (`Cancel Requested`), else 409. */
async function postCancel(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const body = optionalReasonBody(request, "cancel");
  const goal = await tenantGoal(deps, request);
  if (isFinal(goal.status)) {
    throw new InvalidStatusError(
      goal.goalId,
      goal.status,
      `goal is ${goal.status}; cancel needs a goal that is not final`,
    );
  }
  return requestControl(deps, request, goal, "cancel", body.reason);
}

/** The human-input event each control publishes; the resume handler applies it. */
const CONTROL_DETAIL_TYPES = {
  pause: HUMAN_INPUT_DETAIL_TYPES.pauseRequested,
  resume: HUMAN_INPUT_DETAIL_TYPES.resumeRequested,
  retry: HUMAN_INPUT_DETAIL_TYPES.retryRequested,
  cancel: HUMAN_INPUT_DETAIL_TYPES.cancelRequested,
} as const;

/** Publishes the control's event for a goal whose status allows it, and answers 202. */
async function requestControl(
  deps: GoalsApiDeps,
  request: ApiRequest,
  goal: GoalRecord,
  control: keyof typeof CONTROL_DETAIL_TYPES,
  reason?: string,
): Promise<APIGatewayProxyResult> {
  const detail = {
    goalId: goal.goalId,
    requestedBy: request.caller,
    channel: "api" as const,
    requestedAt: deps.now().toISOString(),
  };
  await deps.publisher.publish(
    control === "pause" || control === "cancel"
      ? {
          detailType: CONTROL_DETAIL_TYPES[control],
          detail: { ...detail, ...(reason === undefined ? {} : { reason }) },
        }
      : { detailType: CONTROL_DETAIL_TYPES[control], detail },
  );
  deps.logger.info(`${control} requested`, { goalId: goal.goalId });
  return json(202, { goalId: goal.goalId, requested: control });
}

/** The routes through which a human steers a goal; each publishes one human-input event. */
export function goalControlRoutes(deps: GoalsApiDeps): Route[] {
  return [
    route(OPERATIONS.reviseGoal, (request) => postRevision(deps, request)),
    route(OPERATIONS.postDirective, (request) => postDirective(deps, request)),
    route(OPERATIONS.pauseGoal, (request) => postPause(deps, request)),
    route(OPERATIONS.resumeGoal, (request) => postResume(deps, request)),
    route(OPERATIONS.retryGoal, (request) => postRetry(deps, request)),
    route(OPERATIONS.setLimits, (request) => postLimits(deps, request)),
    route(OPERATIONS.cancelGoal, (request) => postCancel(deps, request)),
  ];
}
