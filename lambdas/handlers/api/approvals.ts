import type { APIGatewayProxyResult } from "aws-lambda";
import { parseOrThrow } from "../../core/goal/validation";
import { decideApprovalFromDoor } from "../../core/human/decide-approval";
import type { Approval } from "../../core/ports/goal-store";
import { OPERATIONS } from "./contract/operations";
import { DecideBodySchema, ListApprovalsQuerySchema } from "./contract/request-schemas";
import { type ApprovalView, ApprovalViewSchema } from "./contract/response-schemas";
import type { GoalsApiDeps } from "./goals-api-deps";
import { errorJson, json } from "./http-responses";
import { parseJsonBody } from "./request-body";
import { type ApiRequest, type Route, route } from "./routes";

export function toApprovalView(approval: Approval): ApprovalView {
  const { decision } = approval;
  return ApprovalViewSchema.parse({
    approvalId: approval.approvalId,
    goalId: approval.goalId,
    runId: approval.runId,
    status: approval.status,
    action: {
      kind: approval.action.kind,
      summary: approval.action.summary,
      ...(approval.action.calls === undefined ? {} : { calls: approval.action.calls }),
    },
    revision: approval.revision,
    requestedAt: approval.requestedAt,
    expiresAt: approval.expiresAt,
    ...(decision === undefined
      ? {}
      : {
          decision: {
            decision: decision.decision,
            decidedBy: decision.decidedBy,
            decidedAt: decision.decidedAt,
            ...(decision.comment === undefined ? {} : { comment: decision.comment }),
          },
        }),
  });
}

async function listApprovals(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const query = parseOrThrow(ListApprovalsQuerySchema, request.query, "query");
  const approvals = await deps.store.listApprovals({
    tenantId: request.tenantId,
    status: query.status,
    ...(query.limit === undefined ? {} : { limit: query.limit }),
  });
  return json(200, { items: approvals.map(toApprovalView) });
}

/**
 * Decides through `decideApprovalFromDoor`, the one place a decision is taken: 200 decided, 409 when
 * someone decided first, 410 when it expired or was superseded, 404 unknown or another tenant's.
 */
async function decideApproval(deps: GoalsApiDeps, request: ApiRequest): Promise<APIGatewayProxyResult> {
  const approvalId = request.params.approvalId ?? "";
  const body = parseOrThrow(DecideBodySchema, parseJsonBody(request.body), "decision");
  const result = await decideApprovalFromDoor(
    { goals: deps.store, publisher: deps.publisher, now: deps.now },
    {
      approvalId,
      decision: body.decision,
      decidedBy: request.caller,
      channel: "api",
      tenantId: request.tenantId,
      ...(body.comment === undefined ? {} : { comment: body.comment }),
    },
  );
  switch (result.outcome) {
    case "decided":
      deps.logger.info("approval decided", { approvalId, goalId: result.approval.goalId });
      return json(200, { approval: toApprovalView(result.approval) });
    case "already_decided":
      return errorJson(409, {
        code: "ApprovalAlreadyDecided",
        message: `Approval '${approvalId}' was already ${result.approval.status}`,
        approval: toApprovalView(result.approval),
      });
    case "expired":
      return errorJson(410, {
        code: "ApprovalExpired",
        message: `Approval '${approvalId}' is ${result.approval.status} and can no longer be decided`,
        approval: toApprovalView(result.approval),
      });
    case "not_found":
      return errorJson(404, { code: "ApprovalNotFound", message: `Approval '${approvalId}' does not exist` });
  }
}

export function approvalsRoutes(deps: GoalsApiDeps): Route[] {
  return [
    route(OPERATIONS.listApprovals, (request) => listApprovals(deps, request)),
    route(OPERATIONS.decideApproval, (request) => decideApproval(deps, request)),
  ];
}
