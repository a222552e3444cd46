import type { Logger } from "@aws-lambda-powertools/logger";
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import type { LinkSecretSource, PreviousLinkSecretSource } from "../../../adapters/secrets/email-secrets";
import { GoalLoopsError } from "../../../core/goal/errors";
import { clip } from "../../../core/goal/text";
import { decideApprovalFromDoor } from "../../../core/human/decide-approval";
import {
  ApprovalLinkError,
  type VerifiedApprovalLink,
  verifyApprovalLink,
} from "../../../core/human/email/approval-link";
import { type EmailApprovers, isEmailApprover } from "../../../core/human/email/email-approvers";
import {
  type ApprovalSummary,
  confirmationPage,
  type ResultPageInput,
  resultPage,
} from "../../../core/human/email/pages";
import type { Approval, GoalStore } from "../../../core/ports/goal-store";
import type { HumanInputPublisher } from "../../../core/ports/human-input-publisher";
import { htmlPage } from "./email-door-responses";

export interface EmailDoorDeps {
  readonly goals: GoalStore;
  readonly publisher: HumanInputPublisher;
  readonly secret: LinkSecretSource;
  /**
   * The key before the last rotation: a link that does not verify with `secret` is tried with it,
   * so rotating the key breaks no link in flight.
   *
   * @default - none: only the current key verifies
   */
  readonly previousSecret?: PreviousLinkSecretSource;
  /** The configured approver addresses (EMAIL_APPROVERS): a link sent to anyone else decides nothing. */
  readonly approvers: EmailApprovers;
  readonly now: () => Date;
  readonly logger: Logger;
}

export type EmailDoor = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

/** The HTTP status of each page: the page says why, the status says it to machines. */
const STATUS: Readonly<Record<ResultPageInput["kind"], number>> = {
  decided: 200,
  malformed: 400,
  tampered: 403,
  not_approver: 403,
  not_found: 404,
  already_decided: 409,
  link_expired: 410,
  approval_expired: 410,
  error: 500,
};

const MAX_COMMENT = 2000;
const APPROVAL_PATH = /\/email\/approvals\/([^/]+)\/?$/;

function answer(page: ResultPageInput): APIGatewayProxyResult {
  return htmlPage(STATUS[page.kind], resultPage(page));
}

/** The `{approvalId}` path segment: from API Gateway's path parameters, else from the path itself. */
function approvalIdOf(event: APIGatewayProxyEvent): string | undefined {
  const fromParameters = event.pathParameters?.approvalId;
  if (fromParameters !== undefined) return fromParameters;
  const segment = APPROVAL_PATH.exec(event.path ?? "")?.[1];
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** The form's optional comment; undefined when absent or blank. */
function commentOf(event: APIGatewayProxyEvent): string | undefined {
  if (!event.body) return undefined;
  const text = event.isBase64Encoded ? Buffer.from(event.body, "base64").toString("utf8") : event.body;
  const comment = new URLSearchParams(text).get("comment")?.trim();
  return comment === undefined || comment === "" ? undefined : comment;
}

/**
 * The link's parts verified with the current key, else (a signature that does not match) with the
 * key before the last rotation, when there is one: a link sent before a rotation still decides.
 */
async function verifyLink(deps: EmailDoorDeps, event: APIGatewayProxyEvent): Promise<VerifiedApprovalLink> {
  const query = event.queryStringParameters ?? {};
  const verify = (secret: string) =>
    verifyApprovalLink({
      approvalId: approvalIdOf(event),
      decision: query.decision,
      expires: query.expires,
      approver: query.approver,
      sig: query.sig,
      secret,
      now: deps.now(),
    });
  try {
    return verify(await deps.secret());
  } catch (error) {
    if (!(error instanceof ApprovalLinkError) || error.reason !== "tampered") throw error;
    const previous = await deps.previousSecret?.();
    if (previous === undefined) throw error;
    return verify(previous);
  }
}

/**
 * The email door: `GET /email/approvals/{approvalId}?decision=&expires=&sig=` verifies the signed
 * link and shows what it would decide with one button; only the `POST` that button sends decides,
 * through `decideApprovalFromDoor` like every other door, as `email:<the address the link was sent
 * to>`. The HMAC is the credential and the address must still be an approver: the route has no
 * other auth, so nothing is read before the link verifies and its address is on the list.
 */
export function createEmailDoor(deps: EmailDoorDeps): EmailDoor {
  return async (event) => {
    const requestId = event.requestContext?.requestId ?? "unknown";
    const method = event.httpMethod.toUpperCase();
    if (method !== "GET" && method !== "POST") {
      return htmlPage(405, resultPage({ kind: "malformed", detail: `${method} is not allowed here` }), {
        allow: "GET, POST",
      });
    }
    try {
      const link = await verifyLink(deps, event);
      // Before anything is read: a link whose address left the approver list is dead.
      if (!isEmailApprover(deps.approvers, link.approver)) {
        deps.logger.info("email link of an address that is not an approver refused", { method, requestId });
        return answer({ kind: "not_approver", approver: link.approver });
      }
      const approval = await deps.goals.getApproval(link.approvalId);
      if (approval === undefined) return answer({ kind: "not_found" });
      const goal = await deps.goals.getGoal(approval.goalId);
      const summary: ApprovalSummary = {
        approvalId: approval.approvalId,
        action: approval.action,
        ...(goal === undefined ? {} : { objective: goal.record.spec.objective }),
      };
      if (method === "GET") return confirm(deps, link, approval, summary);
      return await decide(deps, link, summary, {
        decidedBy: `email:${link.approver}`,
        comment: commentOf(event),
      });
    } catch (error) {
      if (error instanceof ApprovalLinkError) {
        deps.logger.info("email link refused", { reason: error.reason, method, requestId });
        if (error.reason === "tampered") return answer({ kind: "tampered" });
        if (error.reason === "expired" && error.expiredAt !== undefined) {
          return answer({ kind: "link_expired", expiredAt: error.expiredAt });
        }
        return answer({ kind: "malformed", detail: error.message });
      }
      if (error instanceof GoalLoopsError && !error.retryable) {
        // Input the core refused: the page says what was wrong, not "try again".
        deps.logger.info("email request refused", { reason: error.name, method, requestId });
        return answer({ kind: "malformed", detail: clip(error.message, 300) });
      }
      deps.logger.error("email door failed", { method, requestId, error });
      return answer({ kind: "error", requestId });
    }
  };
}

/** GET: what the link would do, or why it cannot. Reads only; the approval stays as it is. */
function confirm(
  deps: EmailDoorDeps,
  link: VerifiedApprovalLink,
  approval: Approval,
  summary: ApprovalSummary,
): APIGatewayProxyResult {
  const settled = settledPage(approval, summary);
  if (settled !== undefined) return answer(settled);
  if (Date.parse(approval.expiresAt) <= deps.now().getTime()) {
    return answer({
      kind: "approval_expired",
      approval: summary,
      status: "expired",
      expiresAt: approval.expiresAt,
    });
  }
  const query = new URLSearchParams({
    decision: link.decision,
    expires: String(Math.floor(link.expiresAt.getTime() / 1000)),
    approver: link.approver,
    sig: link.signature,
  });
  const page = confirmationPage({
    approval: summary,
    decision: link.decision,
    expiresAt: link.expiresAt,
    query: `?${query.toString()}`,
  });
  return htmlPage(200, page);
}

/** The page for an approval that is no longer pending, or undefined while it is. */
function settledPage(approval: Approval, summary: ApprovalSummary): ResultPageInput | undefined {
  switch (approval.status) {
    case "pending":
      return undefined;
    case "expired":
    case "superseded":
      return {
        kind: "approval_expired",
        approval: summary,
        status: approval.status,
        expiresAt: approval.expiresAt,
      };
    case "approved":
    case "rejected":
      return {
        kind: "already_decided",
        approval: summary,
        status: approval.status,
        ...(approval.decision === undefined
          ? {}
          : { decidedBy: approval.decision.decidedBy, decidedAt: approval.decision.decidedAt }),
      };
  }
}

/** POST: the decision, taken once for all doors; a reused link finds it taken. */
async function decide(
  deps: EmailDoorDeps,
  link: VerifiedApprovalLink,
  summary: ApprovalSummary,
  by: { decidedBy: string; comment: string | undefined },
): Promise<APIGatewayProxyResult> {
  if (by.comment !== undefined && by.comment.length > MAX_COMMENT) {
    return answer({ kind: "malformed", detail: `The comment is longer than ${MAX_COMMENT} characters` });
  }
  const result = await decideApprovalFromDoor(
    { goals: deps.goals, publisher: deps.publisher, now: deps.now },
    {
      approvalId: link.approvalId,
      decision: link.decision,
      decidedBy: by.decidedBy,
      channel: "email",
      ...(by.comment === undefined ? {} : { comment: by.comment }),
    },
  );
  deps.logger.info("email decision", { approvalId: link.approvalId, outcome: result.outcome });
  switch (result.outcome) {
    case "not_found":
      return answer({ kind: "not_found" });
    case "decided": {
      const decision = result.approval.decision;
      return answer({
        kind: "decided",
        approval: summary,
        decision: link.decision,
        decidedBy: decision?.decidedBy ?? by.decidedBy,
        decidedAt: decision?.decidedAt ?? deps.now().toISOString(),
      });
    }
    case "already_decided":
    case "expired":
      return answer(settledPage(result.approval, summary) ?? { kind: "not_found" });
  }
}
