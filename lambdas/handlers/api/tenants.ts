import type { APIGatewayProxyResult } from "aws-lambda";
import { GoalLoopsError } from "../../core/goal/errors";
import { parseOrThrow } from "../../core/goal/validation";
import { setTenantLimits, tenantLimitsReader, tenantUsage } from "../../core/tenants/tenant-directory";
import { TenantIdSchema, TenantLimitsPatchSchema } from "../../core/tenants/tenant-limits";
import { isTenantAdmin, NotAnAdminError } from "../../core/tenants/tenants-settings";
import { OPERATIONS } from "./contract/operations";
import type { TenantLimitsAnswer, TenantMe } from "./contract/response-schemas";
import type { GoalsApiDeps } from "./goals-api-deps";
import { json } from "./http-responses";
import { parseJsonBody } from "./request-body";
import { type ApiRequest, type Route, route } from "./routes";
import { admitQueued } from "./tenant-admission";

/** The deployment wired no tenant store into the API: the tenants routes cannot answer. */
class TenantsUnavailableError extends GoalLoopsError {
  override readonly name = "TenantsUnavailable";
}

function tenantsOf(deps: GoalsApiDeps): NonNullable<GoalsApiDeps["tenants"]> {
  if (deps.tenants === undefined) {
    throw new TenantsUnavailableError("this deployment keeps no tenant items for the API");
  }
  return deps.tenants;
}

/**
 * `GET /tenants/me`: who the caller is (its tenant, how it signed in), the limits its tenant runs
 * under now, and what it uses: its running goals, the goals counted against its concurrency limit,
 * today's model spend.
 */
async function getMe(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const { settings, store } = tenantsOf(deps);
  const [limits, usage] = await Promise.all([
    tenantLimitsReader(settings, store)(request.tenantId),
    tenantUsage({ store, goals: deps.store }, request.tenantId, deps.now()),
  ]);
  return json(200, {
    tenantId: request.tenantId,
    caller: request.caller,
    via: request.via,
    admin: isTenantAdmin(settings, request),
    limits,
    usage,
  } satisfies TenantMe);
}

/**
 * `POST /tenants/{tenantId}/limits` `{concurrentGoals?, startsPerMinute?, spendPerDayUsd?,
 * modelShare?}` (a number sets a limit, `null` lifts it): an operator's route, for IAM principals
 * `tenants.admins` names only (403 Forbidden otherwise). 200 with the limits now in effect; goals
 * waiting for a slot start at once when the new concurrency allows it. Goals the daily budget
 * paused stay paused: a human resumes them.
 */
async function postLimits(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const { settings, store } = tenantsOf(deps);
  if (!isTenantAdmin(settings, request)) {
    throw new NotAnAdminError(
      "Only an operator (an IAM principal tenants.admins names) may change a tenant's limits",
    );
  }
  const tenantId = parseOrThrow(TenantIdSchema, request.params.tenantId ?? "", "path");
  const patch = parseOrThrow(TenantLimitsPatchSchema, parseJsonBody(request.body), "limits");
  const limits = await setTenantLimits(
    { settings, store },
    { tenantId, patch, by: request.caller, now: deps.now() },
  );
  deps.logger.info("tenant limits changed", { tenantId, changed: Object.keys(patch), by: request.caller });
  await admitQueued(deps, { tenantId, goalId: "" });
  return json(200, { tenantId, limits } satisfies TenantLimitsAnswer);
}

export function tenantRoutes(deps: GoalsApiDeps): Route[] {
  return [
    route(OPERATIONS.getMyTenant, (request) => getMe(deps, request)),
    route(OPERATIONS.setTenantLimits, (request) => postLimits(deps, request)),
  ];
}
