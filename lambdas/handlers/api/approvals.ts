import type { APIGatewayProxyResult } from "aws-lambda";
import { GatedCallSchema } from "../../core/goal/goal-record";
import { parseOrThrow } from "../../core/goal/validation";
import { decideApprovalFromDoor } from "../../core/human/decide-approval";
import { APPROVAL_STATUSES, type Approval } from "../../core/ports/goal-store";
import * as z from "../../core/zod";
import type { GoalsApiDeps } from "./goals-api-deps";
import { errorJson, json } from "./http-responses";
import { parseJsonBody } from "./request-body";
import type { ApiRequest, Route } from "./routes";

/**
 * An approval as the API shows it. Built field by field from the stored approval (never spread):
 * the task token and the action's fingerprint stay in the store.
 */
export const ApprovalViewSchema = z.strictObject({
  approvalId: z.string(),
  goalId: z.string(),
  runId: z.string(),
  status: z.enum(APPROVAL_STATUSES),
  action: z.strictObject({
    kind: z.string(),
    summary: z.string(),
    calls: z.optional(z.array(GatedCallSchema)),
  }),
  revision: z.number().check(z.int(), z.gte(1)),
  requestedAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  decision: z.optional(
    z.strictObject({
      decision: z.enum(["approve", "reject"]),
      decidedBy: z.string(),
      comment: z.optional(z.string()),
      decidedAt: z.iso.datetime(),
    }),
  ),
});
export type ApprovalView = z.infer<typeof ApprovalViewSchema>;

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

/** `GET /approvals?status=&limit=` (status defaults to pending). */
const ListApprovalsQuerySchema = z.object({
  status: z._default(z.enum(APPROVAL_STATUSES), "pending"),
  limit: z.optional(
    z.pipe(
      z.pipe(z.string().check(z.regex(/^\d{1,4}$/, "must be a whole number")), z.transform(Number)),
      z.number().check(z.int(), z.gte(1), z.lte(1000)),
    ),
  ),
});

/** `POST /approvals/{approvalId}` */
const DecideBodySchema = z.strictObject({
  decision: z.enum(["approve", "reject"]),
  comment: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(2000))),
});

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
    { method: "GET", path: "/approvals", handle: (request) => listApprovals(deps, request) },
    { method: "POST", path: "/approvals/{approvalId}", handle: (request) => decideApproval(deps, request) },
  ];
}
