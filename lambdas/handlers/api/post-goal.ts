import type { APIGatewayProxyResult } from "aws-lambda";
import { ValidationError } from "../../core/goal/errors";
import { goalIdForIdempotencyKey } from "../../core/goal/goal-ids";
import type { GoalRecord } from "../../core/goal/goal-record";
import type { GoalSpec, Pattern } from "../../core/goal/goal-spec";
import { runStateMachineArn, type VersionTarget } from "../../core/goal/runs-on";
import {
  assertSameSubmission,
  FIRST_RUN_ID,
  intakeGoal,
  parseSubmittedGoalSpec,
} from "../../core/intake/goal-intake";
import type { PatternChoice } from "../../core/intake/pattern-selector";
import { type ModelSelection, selectWithModel } from "../../core/intake/select-call";
import { GoalAlreadyExistsError, type VersionedGoal } from "../../core/ports/goal-store";
import { PatternUnavailableError } from "./api-errors";
import { OPERATIONS } from "./contract/operations";
import { IdempotencyKeySchema } from "./contract/request-schemas";
import { startFirstRun } from "./first-run";
import type { GoalsApiDeps } from "./goals-api-deps";
import { json } from "./http-responses";
import { parseJsonBody } from "./request-body";
import { type ApiRequest, type Route, route } from "./routes";
import { admitted, startOrQueue, takeTenantStart } from "./tenant-admission";

export function idempotencyKeyOf(request: ApiRequest): string | undefined {
  const key = request.headers["idempotency-key"];
  if (key === undefined) return undefined;
  if (!IdempotencyKeySchema.safeParse(key).success) {
    const message = "must be 1-255 printable ASCII characters without spaces";
    throw new ValidationError(`Invalid Idempotency-Key header: ${message}`, [
      { path: "Idempotency-Key", message },
    ]);
  }
  return key;
}

function accepted(record: GoalRecord): APIGatewayProxyResult {
  const { goalId, status, pattern, runId } = record;
  return json(202, { goalId, status, pattern, runId }, { location: `/goals/${goalId}` });
}

/**
 * `POST /goals`: validate, choose the pattern, store the goal, start its first run.
 *
 * With an `Idempotency-Key` the goal id is derived from tenant and key, so a retry (after a timeout,
 * or a crash between storing the goal and starting its run) finds the stored goal, starts the same
 * execution name again (a no-op when it runs) and answers as the first request did. It looks the
 * goal up before intake: a retry neither pays for the `select` call again nor needs the goal's MCP
 * servers to answer a second listing.
 */
async function postGoal(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const body = parseJsonBody(request.body);
  const key = idempotencyKeyOf(request);
  const goalId = key === undefined ? deps.newGoalId() : goalIdForIdempotencyKey(request.tenantId, key);
  if (key !== undefined) {
    const existing = await deps.store.getGoal(goalId);
    if (existing !== undefined)
      return repeatedPost(deps, { ...existing.record, spec: parseSubmittedGoalSpec(body) });
  }
  // A new goal: it takes one of the tenant's starts (429 when there is none) before anything is spent.
  await takeTenantStart(deps, request.tenantId);
  const intake = await intakeGoal({
    body,
    goalId,
    tenantId: request.tenantId,
    now: deps.now(),
    ...(deps.toolNames === undefined ? {} : { knownTools: deps.toolNames }),
    ...(deps.mcp === undefined ? {} : { mcp: deps.mcp }),
    ...(deps.models === undefined
      ? {}
      : {
          allowedModelIds: deps.models.allowedModelIds,
          tiers: deps.models.tiers,
          select: modelSelector(deps, deps.models, goalId),
        }),
    target: (pattern) => liveTarget(deps, pattern),
  });
  const { pattern, patternReason } = intake.record;
  const stateMachineArn = runStateMachineArn(intake.record, deps.stateMachineArns);
  if (stateMachineArn === undefined) {
    throw new PatternUnavailableError(pattern, patternReason, Object.keys(deps.stateMachineArns));
  }
  // Under the tenant's concurrency limit: a slot, or `waiting` for one (never dropped).
  const change = await admitted(deps, intake);

  let stored: VersionedGoal;
  try {
    stored = await deps.store.createGoal(change.record, change.events);
  } catch (error) {
    if (key === undefined || !(error instanceof GoalAlreadyExistsError)) throw error;
    return repeatedPost(deps, change.record);
  }
  deps.logger.info("goal created", { goalId, pattern, patternReason, tenantId: request.tenantId });
  await scheduleDeadline(deps, stored.record);
  await startOrQueue(deps, stored, stateMachineArn);
  return accepted(stored.record);
}

/**
 * The version a new goal of `pattern` starts on: the one the pattern's live alias names now. Undefined
 * when the pattern is not deployed (the caller answers PatternUnavailable) or no directory is wired.
 */
export async function liveTarget(deps: GoalsApiDeps, pattern: Pattern): Promise<VersionTarget | undefined> {
  if (deps.versions === undefined || deps.stateMachineArns[pattern] === undefined) return undefined;
  return deps.versions.live(pattern);
}

/**
 * A goal with a deadline is woken at it when no step runs for it then (waiting, paused). A schedule
 * that could not be set does not fail the POST: the goal exists, and its loop checks the deadline
 * before every step; the error is logged so an operator sees the gap.
 */
export async function scheduleDeadline(deps: GoalsApiDeps, record: GoalRecord): Promise<void> {
  const deadline = record.spec.limits.deadline;
  if (deadline === undefined || deps.deadlines === undefined) return;
  try {
    await deps.deadlines.set(record.goalId, deadline);
  } catch (error) {
    deps.logger.error("deadline schedule not set", { goalId: record.goalId, deadline, error });
  }
}

/**
 * The `select` call for a goal no selector rule decides. A failed call does not fail the POST: the
 * fallback pattern stands, and the reason says the select role failed.
 */
function modelSelector(
  deps: GoalsApiDeps,
  models: NonNullable<GoalsApiDeps["models"]>,
  goalId: string,
): (spec: GoalSpec, fallback: PatternChoice) => Promise<ModelSelection | undefined> {
  return async (spec, fallback) => {
    try {
      const ports = {
        goals: deps.store,
        model: models.client,
        now: deps.now,
        ...(models.capacity === undefined ? {} : { capacity: models.capacity }),
      };
      return await selectWithModel(ports, {
        goalId,
        runId: FIRST_RUN_ID,
        spec,
        fallback,
        models: models.tiers,
      });
    } catch (error) {
      deps.logger.warn("select call failed; the selector's fallback stands", { goalId, error });
      return undefined;
    }
  };
}

/** A POST with an Idempotency-Key whose goal exists: answer with it, and heal a run that never started. */
async function repeatedPost(deps: GoalsApiDeps, retried: GoalRecord): Promise<APIGatewayProxyResult> {
  const existing = await deps.store.getGoal(retried.goalId);
  // The id is a hash of tenant and key: another tenant's goal here would be a SHA-256 collision.
  if (existing === undefined || existing.record.tenantId !== retried.tenantId) {
    throw new GoalAlreadyExistsError(`Goal ${retried.goalId} exists but not for this tenant`);
  }
  assertSameSubmission(existing.record, retried);
  const stateMachineArn = runStateMachineArn(existing.record, deps.stateMachineArns);
  if (existing.record.status === "running" && existing.record.runId === FIRST_RUN_ID && stateMachineArn) {
    await startFirstRun(deps, existing, stateMachineArn);
  }
  deps.logger.info("repeated goal request", { goalId: retried.goalId, status: existing.record.status });
  return accepted(existing.record);
}

export function postGoalRoute(deps: GoalsApiDeps): Route {
  return route(OPERATIONS.createGoal, (request) => postGoal(deps, request));
}
