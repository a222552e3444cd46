import type { APIGatewayProxyResult } from "aws-lambda";
import { GOAL_ID_PATTERN } from "../../../core/goal/goal-ids";
import type { GoalRecord } from "../../../core/goal/goal-record";
import { clip } from "../../../core/goal/text";
import type { SlackMessage } from "../../../core/human/slack/block-kit";
import { isSlackResponseUrl, SLACK_RESPONSE_URL_HOSTS } from "../../../core/human/slack/response-url";
import { isSlackApprover, notAnApproverText } from "../../../core/human/slack/slack-approvers";
import type { SlackDoorAnswer } from "../../../core/human/slack/slack-door-answer";
import { slackTenantOf } from "../../../core/human/slack/slack-tenants";
import { json } from "../../api/http-responses";
import type { SlackDoorDeps } from "./slack-door-deps";

/** An acknowledgement with nothing to show: Slack leaves the conversation as it is. */
export const OK_EMPTY: APIGatewayProxyResult = { statusCode: 200, headers: {}, body: "" };

/** Every answer with a body is a Slack message, as the OpenAPI document describes the door's. */
export function slackAnswer(statusCode: number, answer: SlackDoorAnswer): APIGatewayProxyResult {
  return json(statusCode, answer);
}

/** A message only the person who acted sees. Slack shows only 200 answers, so user errors are 200 too. */
export function ephemeral(text: string, statusCode = 200): APIGatewayProxyResult {
  return slackAnswer(statusCode, { response_type: "ephemeral", text });
}

export function ephemeralMessage(message: SlackMessage): APIGatewayProxyResult {
  return slackAnswer(200, { response_type: "ephemeral", text: message.text, blocks: message.blocks });
}

export function inChannelMessage(text: string): APIGatewayProxyResult {
  return slackAnswer(200, { response_type: "in_channel", text });
}

/**
 * The tenant a request from `channelId` acts for: the channel's (`approvals.slack.channelTenants`),
 * else the workspace's.
 */
export function requestTenant(deps: SlackDoorDeps, channelId: string | undefined): string {
  return slackTenantOf(
    { workspaceTenantId: deps.tenantId, channelTenants: deps.channelTenants ?? new Map() },
    channelId,
  );
}

/**
 * The goal, when it exists and belongs to `tenantId` (the request's); otherwise undefined (not
 * probeable). An id the system never issues is not looked up: it cannot name a goal.
 */
export async function tenantGoal(
  deps: SlackDoorDeps,
  tenantId: string,
  goalId: string,
): Promise<GoalRecord | undefined> {
  if (!GOAL_ID_PATTERN.test(goalId)) return undefined;
  const found = await deps.goals.getGoal(goalId);
  if (found === undefined) return undefined;
  if (found.record.tenantId !== tenantId) return undefined;
  return found.record;
}

/**
 * Undefined when the request names no `response_url`, or one on Slack's own hosts; otherwise the
 * refusal (400), logged. Checked before anything else reads the request, so a refused request
 * changes nothing and nothing is ever posted to a foreign URL.
 */
export function refuseForeignResponseUrl(
  deps: SlackDoorDeps,
  responseUrl: string | undefined,
): APIGatewayProxyResult | undefined {
  if (responseUrl === undefined || isSlackResponseUrl(responseUrl)) return undefined;
  deps.logger.warn("slack request refused: its response_url is not on Slack's hosts", {
    responseUrl: clip(responseUrl, 200),
  });
  return ephemeral(
    `This request's response_url is not on Slack's hosts (${SLACK_RESPONSE_URL_HOSTS.join(", ")}); nothing was done.`,
    400,
  );
}

/**
 * Undefined when `userId` is an approver; otherwise the refusal: 403 with the reason, also posted
 * to `responseUrl` (best effort) because Slack shows the person nothing of a non-200 answer. Called
 * before anything is read or changed, so a refused request changes nothing.
 */
export async function refuseNonApprover(
  deps: SlackDoorDeps,
  userId: string,
  responseUrl: string | undefined,
): Promise<APIGatewayProxyResult | undefined> {
  if (isSlackApprover(deps.approverUserIds, userId)) return undefined;
  deps.logger.warn("slack request from a user who is not an approver refused", { user: userId });
  const message: SlackDoorAnswer = {
    response_type: "ephemeral",
    replace_original: false,
    text: notAnApproverText(userId),
  };
  if (deps.responder !== undefined && responseUrl !== undefined) {
    await deps.responder.respond(responseUrl, message).catch((error: unknown) => {
      deps.logger.warn("could not tell the refused user through response_url", { error });
    });
  }
  return slackAnswer(403, message);
}
