import type { APIGatewayProxyResult } from "aws-lambda";
import type { GoalRecord } from "../../../core/goal/goal-record";
import type { SlackMessage } from "../../../core/human/slack/block-kit";
import { json } from "../../api/http-responses";
import type { SlackDoorDeps } from "./slack-door-deps";

/** An acknowledgement with nothing to show: Slack leaves the conversation as it is. */
export const OK_EMPTY: APIGatewayProxyResult = { statusCode: 200, headers: {}, body: "" };

/** A message only the person who acted sees. Slack shows only 200 answers, so user errors are 200 too. */
export function ephemeral(text: string, statusCode = 200): APIGatewayProxyResult {
  return json(statusCode, { response_type: "ephemeral", text });
}

export function ephemeralMessage(message: SlackMessage): APIGatewayProxyResult {
  return json(200, { response_type: "ephemeral", text: message.text, blocks: message.blocks });
}

export function inChannelMessage(text: string): APIGatewayProxyResult {
  return json(200, { response_type: "in_channel", text });
}

/** The goal, when it exists and belongs to the workspace's tenant; otherwise undefined (not probeable). */
export async function tenantGoal(deps: SlackDoorDeps, goalId: string): Promise<GoalRecord | undefined> {
  const found = await deps.goals.getGoal(goalId);
  if (found === undefined) return undefined;
  if (deps.tenantId !== undefined && found.record.tenantId !== deps.tenantId) return undefined;
  return found.record;
}
