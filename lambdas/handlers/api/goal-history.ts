import type { APIGatewayProxyResult } from "aws-lambda";
import { copyHistory } from "../../core/fork/copy-history";
import { assertForkableOn, checkedDecisions, forkRecord, forkRequestSha256 } from "../../core/fork/fork-goal";
import { forkPointOf } from "../../core/fork/fork-point";
import { type ForkRequest, ForkRequestSchema, ReplayRequestSchema } from "../../core/fork/fork-request";
import { replayGoal } from "../../core/fork/replay";
import { stepTimeline } from "../../core/fork/step-timeline";
import type { GoalEvent } from "../../core/goal/goal-event";
import { goalIdForIdempotencyKey } from "../../core/goal/goal-ids";
import type { GoalRecord } from "../../core/goal/goal-record";
import { runStateMachineArn } from "../../core/goal/runs-on";
import { parseOrThrow } from "../../core/goal/validation";
import { IdempotencyKeyReusedError } from "../../core/intake/goal-intake";
import { assertModelsAllowed } from "../../core/models/model-allow-list";
import { type Approval, GoalAlreadyExistsError, type VersionedGoal } from "../../core/ports/goal-store";
import { HistoryUnavailableError, PatternUnavailableError } from "./api-errors";
import { OPERATIONS } from "./contract/operations";
import { startFirstRun } from "./first-run";
import { tenantGoal } from "./get-goals";
import type { GoalsApiDeps } from "./goals-api-deps";
import { json } from "./http-responses";
import { idempotencyKeyOf, liveTarget, scheduleDeadline } from "./post-goal";
import { ListStepsQuerySchema } from "./query-params";
import { parseJsonBody } from "./request-body";
import { type ApiRequest, type Route, route } from "./routes";
import { admitted, startOrQueue, takeTenantStart } from "./tenant-admission";

const DEFAULT_STEPS_PAGE = 50;
/** Events read for a timeline's approvals, at most (a page is 1,000). */
const MAX_EVENT_PAGES = 20;

function historyOf(deps: GoalsApiDeps): NonNullable<GoalsApiDeps["history"]> {
  if (deps.history === undefined) throw new HistoryUnavailableError("no goal history is wired into this API");
  return deps.history;
}

/**
 * `GET /goals/{goalId}/steps?after=N&limit=`: the step log as a timeline, a page at a time: each
 * counted step's kind, what it did, its cost, its checkpoint, the workspace after it, whether a fork
 * can start after it (and why not); and the approvals the goal was asked, for a fork's `decisions`.
 */
async function listSteps(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const { history } = historyOf(deps);
  const query = parseOrThrow(ListStepsQuerySchema, request.query, "query");
  const goal = await tenantGoal(deps, request);
  const events = await allEvents(deps, goal.goalId);
  const timeline = await stepTimeline(
    { goals: deps.store, history },
    goal,
    { after: query.after ?? 0, limit: query.limit ?? DEFAULT_STEPS_PAGE },
    events,
  );
  return json(200, timeline);
}

async function allEvents(deps: GoalsApiDeps, goalId: string): Promise<GoalEvent[]> {
  const events: GoalEvent[] = [];
  let after = 0;
  for (let page = 0; page < MAX_EVENT_PAGES; page += 1) {
    const { items, nextSeq } = await deps.store.listEvents(goalId, { after, limit: 1000 });
    events.push(...items);
    if (nextSeq === after) break;
    after = nextSeq;
  }
  return events;
}

/**
 * `POST /goals/{goalId}/fork`: a new goal of the caller's tenant that starts where the source stood
 * after `atStep` (see `forkRecord` and `copyHistory`), and its first run. 202 with its id.
 *
 * With an `Idempotency-Key` the fork's id is derived from tenant, source and key, so a retry finds
 * the fork the first request made (or copies the rest of what a crashed one began, then makes it)
 * and answers the same; the same key with another request is a 422. Forking a goal while it runs
 * is fine: everything up to a counted step is written once and never changes.
 */
async function postFork(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const ports = historyOf(deps);
  const body = parseOrThrow(ForkRequestSchema, parseJsonBody(request.body), "fork request");
  const key = idempotencyKeyOf(request);
  const source = await tenantGoal(deps, request);
  const goalId =
    key === undefined
      ? deps.newGoalId()
      : goalIdForIdempotencyKey(request.tenantId, `fork\u0000${source.goalId}\u0000${key}`);
  if (key !== undefined) {
    const existing = await deps.store.getGoal(goalId);
    if (existing !== undefined) return repeatedFork(deps, existing, source, body);
  }
  const point = await forkPointOf({ goals: deps.store, history: ports.history }, source, body.atStep);
  // A fork is a new goal of the tenant: it takes a start, and a slot or its turn, like a posted one.
  await takeTenantStart(deps, request.tenantId);
  const decisions = checkedDecisions({
    request: body,
    point,
    source,
    approvals: await approvalsNamed(deps, body),
    caller: request.caller,
  });
  // A fork is a new goal: it runs on the live version, which must read what this code copies for it.
  const target = await liveTarget(deps, source.pattern);
  assertForkableOn(target);
  const made = forkRecord({
    source,
    point,
    request: body,
    decisions,
    goalId,
    caller: request.caller,
    revisionId: deps.newRevisionId(),
    now: deps.now(),
    ...(target === undefined ? {} : { target }),
  });
  if (deps.models !== undefined) assertModelsAllowed(made.record.spec, deps.models.allowedModelIds);
  const stateMachineArn = runStateMachineArn(made.record, deps.stateMachineArns);
  if (stateMachineArn === undefined) {
    const { pattern, patternReason } = made.record;
    throw new PatternUnavailableError(pattern, patternReason, Object.keys(deps.stateMachineArns));
  }
  const change = await admitted(deps, made);
  await copyHistory({ goals: deps.store, ...ports }, { point, record: change.record });
  let stored: VersionedGoal;
  try {
    stored = await deps.store.createGoal(change.record, change.events);
  } catch (error) {
    if (key === undefined || !(error instanceof GoalAlreadyExistsError)) throw error;
    const existing = await deps.store.getGoal(goalId);
    if (existing === undefined) throw error;
    return repeatedFork(deps, existing, source, body);
  }
  deps.logger.info("goal forked", { goalId, source: source.goalId, atStep: body.atStep });
  await scheduleDeadline(deps, stored.record);
  await startOrQueue(deps, stored, stateMachineArn);
  return forked(stored.record);
}

async function approvalsNamed(deps: GoalsApiDeps, body: ForkRequest): Promise<Map<string, Approval>> {
  const ids = (body.decisions ?? []).map((decision) => decision.approvalId);
  const found = await Promise.all(ids.map((approvalId) => deps.store.getApproval(approvalId)));
  return new Map(
    found.flatMap((approval) => (approval === undefined ? [] : [[approval.approvalId, approval]])),
  );
}

/** A fork request with an Idempotency-Key whose fork exists: the same answer, and a first run that never started is started. */
async function repeatedFork(
  deps: GoalsApiDeps,
  existing: VersionedGoal,
  source: GoalRecord,
  body: ForkRequest,
): Promise<APIGatewayProxyResult> {
  const { record } = existing;
  if (record.tenantId !== source.tenantId) {
    throw new GoalAlreadyExistsError(`Goal ${record.goalId} exists but not for this tenant`);
  }
  if (record.fork?.requestSha256 !== forkRequestSha256(source.goalId, body)) {
    throw new IdempotencyKeyReusedError(record.goalId);
  }
  const stateMachineArn = runStateMachineArn(record, deps.stateMachineArns);
  // Version 1: no step has loaded it yet, so its first run may never have started.
  if (record.status === "running" && existing.version === 1 && stateMachineArn !== undefined) {
    await startFirstRun(deps, existing, stateMachineArn);
  }
  return forked(record);
}

function forked(record: GoalRecord): APIGatewayProxyResult {
  const { goalId, status, pattern, runId } = record;
  return json(
    202,
    { goalId, status, pattern, runId, forkedFrom: record.spec.forkedFrom },
    { location: `/goals/${goalId}` },
  );
}

/**
 * `POST /goals/{goalId}/replay {toStep?}`: replays the goal's steps from the checkpoints and the step
 * log alone (no model call, no tool) and answers whether they agree with the recorded states, and
 * the first step where they do not. 200; nothing is written.
 */
async function postReplay(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const { history } = historyOf(deps);
  const body = request.body === undefined || request.body.trim() === "" ? {} : parseJsonBody(request.body);
  const { toStep } = parseOrThrow(ReplayRequestSchema, body, "replay request");
  const goal = await tenantGoal(deps, request);
  return json(200, await replayGoal({ goals: deps.store, history }, goal, toStep));
}

/** A goal's history: its steps, a fork from one of them, and a replay of them. */
export function goalHistoryRoutes(deps: GoalsApiDeps): Route[] {
  return [
    route(OPERATIONS.listSteps, (request) => listSteps(deps, request)),
    route(OPERATIONS.forkGoal, (request) => postFork(deps, request)),
    route(OPERATIONS.replayGoal, (request) => postReplay(deps, request)),
  ];
}
