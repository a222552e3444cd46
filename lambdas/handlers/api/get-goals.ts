import type { APIGatewayProxyResult } from "aws-lambda";
import { pollingEventWaiter } from "../../adapters/event-waiters/polling-event-waiter";
import type { GoalRecord } from "../../core/goal/goal-record";
import { isFinal } from "../../core/goal/goal-status";
import { toSnapshot } from "../../core/goal/snapshot";
import { startedSubgoals } from "../../core/goal/subgoals";
import { parseOrThrow } from "../../core/goal/validation";
import { GoalNotFoundError } from "../../core/ports/goal-store";
import { OPERATIONS } from "./contract/operations";
import type { GoalsApiDeps } from "./goals-api-deps";
import { json } from "./http-responses";
import { ListEventsQuerySchema, ListGoalsQuerySchema } from "./query-params";
import { type ApiRequest, type Route, route } from "./routes";
import { waitForEvents } from "./wait-for-events";

function goalIdParam(request: ApiRequest): string {
  return request.params.goalId ?? "";
}

/**
 * The goal, if it belongs to the caller's tenant. Another tenant's goal is answered exactly like
 * a missing one, so ids of other tenants' goals cannot be probed.
 */
export async function tenantGoal(deps: GoalsApiDeps, request: ApiRequest): Promise<GoalRecord> {
  const goalId = goalIdParam(request);
  const found = await deps.store.getGoal(goalId);
  if (found === undefined || found.record.tenantId !== request.tenantId) {
    throw new GoalNotFoundError(`Goal '${goalId}' does not exist`);
  }
  return found.record;
}

/** `GET /goals?status=&limit=&cursor=`: the caller's goals as snapshots, a page at a time. */
async function listGoals(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const query = parseOrThrow(ListGoalsQuerySchema, request.query, "query");
  const page = await deps.store.listGoals({ tenantId: request.tenantId, ...query });
  const items = page.items.map((record) => toSnapshot(record));
  return json(200, page.cursor === undefined ? { items } : { items, cursor: page.cursor });
}

/** `GET /goals/{goalId}`: the snapshot, its sub-goals as they are now. */
async function getGoal(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const goal = await tenantGoal(deps, request);
  return json(200, toSnapshot(goal, { children: await childrenOf(deps, goal) }));
}

/** `GET /goals/{goalId}/children`: the snapshots of the sub-goals the goal started, oldest first. */
async function listChildren(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const goal = await tenantGoal(deps, request);
  const children = await childrenOf(deps, goal);
  const grandchildren = await Promise.all(children.map((child) => childrenOf(deps, child)));
  return json(200, {
    items: children.map((child, index) => toSnapshot(child, { children: grandchildren[index] ?? [] })),
  });
}

/** The goal's sub-goals' records (a goal starts at most `subgoals.maxChildren` of them). */
async function childrenOf(deps: GoalsApiDeps, goal: GoalRecord): Promise<GoalRecord[]> {
  const ids = startedSubgoals(goal).flatMap((entry) => (entry.goalId === undefined ? [] : [entry.goalId]));
  const found = await Promise.all(ids.map((goalId) => deps.store.getGoal(goalId)));
  // A child is the parent's tenant's; anything else would be a bug, and is left out.
  return found.flatMap((item) => (item && item.record.tenantId === goal.tenantId ? [item.record] : []));
}

/**
 * `GET /goals/{goalId}/events?after=N&limit=&waitSeconds=S`: events with `seq > after`; pass
 * `nextSeq` as `after` next. With `waitSeconds` it is a long poll: it answers as soon as an event
 * after N exists, or empty after S seconds; at once for a final goal, which has no more to come.
 */
async function listEvents(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const { waitSeconds = 0, ...query } = parseOrThrow(ListEventsQuerySchema, request.query, "query");
  const goal = await tenantGoal(deps, request);
  const wait = isFinal(goal.status) ? 0 : waitSeconds;
  const { items, nextSeq } = await waitForEvents(
    { store: deps.store, waiter: deps.eventWaiter ?? pollingEventWaiter(), now: deps.now },
    {
      goalId: goal.goalId,
      after: query.after ?? 0,
      ...(query.limit === undefined ? {} : { limit: query.limit }),
      until: new Date(deps.now().getTime() + wait * 1000),
    },
  );
  return json(200, { items, nextSeq });
}

export function getGoalsRoutes(deps: GoalsApiDeps): Route[] {
  return [
    route(OPERATIONS.listGoals, (request) => listGoals(deps, request)),
    route(OPERATIONS.getGoal, (request) => getGoal(deps, request)),
    route(OPERATIONS.listEvents, (request) => listEvents(deps, request)),
    route(OPERATIONS.listChildren, (request) => listChildren(deps, request)),
  ];
}
