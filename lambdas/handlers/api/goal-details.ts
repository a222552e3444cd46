import type { APIGatewayProxyResult } from "aws-lambda";
import { checkProgress } from "../../core/goal/evidence/check-evidence";
import { RunIdSchema } from "../../core/goal/goal-ids";
import type { GoalRecord } from "../../core/goal/goal-record";
import { parseOrThrow } from "../../core/goal/validation";
import { GoalNotFoundError } from "../../core/ports/goal-store";
import { OPERATIONS } from "./contract/operations";
import { RunHistoryQuerySchema } from "./contract/request-schemas";
import type { GoalDetails } from "./contract/response-schemas";
import { tenantGoal } from "./get-goals";
import type { GoalsApiDeps } from "./goals-api-deps";
import { errorJson, json } from "./http-responses";
import { type ApiRequest, type Route, route } from "./routes";

export function goalDetails(record: GoalRecord): GoalDetails {
  const progress = checkProgress(record);
  const { spec } = record;
  return {
    goalId: record.goalId,
    status: record.status,
    revision: record.revision,
    pattern: record.pattern,
    patternReason: record.patternReason,
    contract: {
      objective: spec.objective,
      scope: spec.scope ?? [],
      constraints: spec.constraints ?? [],
      successChecks: spec.successChecks,
      limits: spec.limits,
      tools: spec.tools ?? [],
      approval: spec.approval,
      ...(spec.models === undefined ? {} : { models: spec.models }),
      ...(spec.hints === undefined ? {} : { hints: spec.hints }),
    },
    checks: spec.successChecks.map((check) => ({
      id: check.id,
      description: check.description,
      verify: check.verify,
      state: progress.checks[check.id] ?? "not_met",
      evidence: record.evidence.find((evidence) => evidence.checkId === check.id) ?? null,
    })),
    plan: record.planState
      ? {
          version: record.planState.version,
          steps: record.planState.steps,
          current: record.planState.current ?? null,
          pendingReplan: record.planState.pending ?? null,
          history: record.planState.history,
        }
      : null,
    attempts: record.attempts ?? 0,
    lessons: record.lessons ?? [],
    revisions: record.revisionLog,
    queuedRevisions: record.inbox,
    contractProposal: record.contractProposal ?? null,
    tools: (record.frozenTools ?? []).map((tool) => ({
      name: tool.name,
      server: tool.server,
      tool: tool.tool,
      risk: tool.risk,
      definitionHash: tool.definitionHash,
    })),
    runId: record.runId,
    previousRunId: record.previousRunId ?? null,
  };
}

async function getDetails(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  return json(200, goalDetails(await tenantGoal(deps, request)));
}

/** Every run the goal had, oldest first: the run ids its events name, and the current one. */
async function runIdsOf(deps: GoalsApiDeps, record: GoalRecord): Promise<string[]> {
  const ids = new Set<string>();
  let after = 0;
  for (;;) {
    const page = await deps.store.listEvents(record.goalId, { after, limit: 1000 });
    for (const event of page.items) if (event.runId) ids.add(event.runId);
    if (page.items.length === 0 || page.nextSeq === after) break;
    after = page.nextSeq;
  }
  ids.add(record.runId);
  return [...ids];
}

function runsOf(deps: GoalsApiDeps, record: GoalRecord) {
  const stateMachineArn = deps.stateMachineArns[record.pattern];
  if (deps.runHistory === undefined || stateMachineArn === undefined) return undefined;
  return { history: deps.runHistory, stateMachineArn };
}

const RUNS_UNAVAILABLE = {
  code: "RunHistoryUnavailable",
  message: "this deployment cannot read its runs from Step Functions",
};

/**
 * `GET /goals/{goalId}/runs`: each run of the goal (first run, resumes, continue-as-new) with its
 * Step Functions execution: status, start, stop, error. A run whose execution is gone is listed
 * with status `UNKNOWN`.
 */
async function listRuns(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const record = await tenantGoal(deps, request);
  const runs = runsOf(deps, record);
  if (runs === undefined) return errorJson(503, RUNS_UNAVAILABLE);
  const items = await Promise.all(
    (await runIdsOf(deps, record)).map(async (runId) => {
      const execution = await runs.history.describe({
        stateMachineArn: runs.stateMachineArn,
        goalId: record.goalId,
        runId,
      });
      return { runId, current: runId === record.runId, execution: execution ?? null };
    }),
  );
  return json(200, { goalId: record.goalId, items });
}

/** `GET /goals/{goalId}/runs/{runId}/history?nextToken=&maxResults=`: a page of the run's state history. */
async function runHistory(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const query = parseOrThrow(RunHistoryQuerySchema, request.query, "query");
  const runId = parseOrThrow(RunIdSchema, request.params.runId ?? "", "runId");
  const record = await tenantGoal(deps, request);
  const runs = runsOf(deps, record);
  if (runs === undefined) return errorJson(503, RUNS_UNAVAILABLE);
  if (!(await runIdsOf(deps, record)).includes(runId)) {
    throw new GoalNotFoundError(`Goal '${record.goalId}' has no run '${runId}'`);
  }
  const page = await runs.history.history(
    { stateMachineArn: runs.stateMachineArn, goalId: record.goalId, runId },
    query,
  );
  return json(200, { goalId: record.goalId, runId, ...page });
}

export function goalDetailsRoutes(deps: GoalsApiDeps): Route[] {
  return [
    route(OPERATIONS.getDetails, (request) => getDetails(deps, request)),
    route(OPERATIONS.listRuns, (request) => listRuns(deps, request)),
    route(OPERATIONS.getRunHistory, (request) => runHistory(deps, request)),
  ];
}
