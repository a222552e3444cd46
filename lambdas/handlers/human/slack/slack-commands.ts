import type { APIGatewayProxyResult } from "aws-lambda";
import { DirectiveError } from "../../../core/goal/errors";
import { FINAL_STATUSES } from "../../../core/goal/goal-record";
import { toSnapshot } from "../../../core/goal/snapshot";
import { clip } from "../../../core/goal/text";
import { directiveRevisionType } from "../../../core/human/directive";
import { HUMAN_INPUT_DETAIL_TYPES } from "../../../core/human/human-input-events";
import { whoText } from "../../../core/human/slack/approval-message";
import { escapeMrkdwn } from "../../../core/human/slack/block-kit";
import { goalStatusMessage } from "../../../core/human/slack/goal-snapshot-blocks";
import { parseSlackCommand, type SlackGoalCommand } from "../../../core/human/slack/slack-command";
import { type SlashCommand, SlashCommandSchema, slackActor } from "../../../core/human/slack/slack-payloads";
import {
  ephemeral,
  ephemeralMessage,
  inChannelMessage,
  refuseForeignResponseUrl,
  refuseNonApprover,
  requestTenant,
  tenantGoal,
} from "./slack-answers";
import type { SlackDoorDeps } from "./slack-door-deps";

/** A queued revision's content limit (QueuedRevisionSchema). */
const MAX_REVISION_TEXT = 8000;

/**
 * `POST /slack/commands` after the signature was verified, from an approver only (anyone else gets
 * a 403 before anything is read: a goal's status is not for the whole workspace either):
 * `/goal <goalId> status` answers the
 * snapshot to the person who asked; `add-constraint` and `redirect` put a `Revision Requested` on
 * the bus (the goal queues it and applies it at its next step boundary) and say so in the channel.
 */
export async function handleCommand(deps: SlackDoorDeps, rawBody: string): Promise<APIGatewayProxyResult> {
  const form = Object.fromEntries(new URLSearchParams(rawBody));
  const parsed = SlashCommandSchema.safeParse(form);
  if (!parsed.success) return ephemeral("This request is not a slash command.", 400);
  const foreign = refuseForeignResponseUrl(deps, parsed.data.response_url);
  if (foreign !== undefined) return foreign;
  const refused = await refuseNonApprover(deps, parsed.data.user_id, parsed.data.response_url);
  if (refused !== undefined) return refused;

  let command: SlackGoalCommand;
  try {
    command = parseSlackCommand(parsed.data.text);
  } catch (error) {
    if (error instanceof DirectiveError) return ephemeral(error.message);
    throw error;
  }
  // The channel's tenant when it has one, else the workspace's: another tenant's goal is unknown.
  const goal = await tenantGoal(deps, requestTenant(deps, parsed.data.channel_id), command.goalId);
  if (goal === undefined) {
    return ephemeral(
      `Goal \`${escapeMrkdwn(command.goalId)}\` does not exist (goal ids are \`g-\` and 26 characters).`,
    );
  }
  if (command.directive.kind === "status") return ephemeralMessage(goalStatusMessage(toSnapshot(goal)));
  if (FINAL_STATUSES.has(goal.status)) {
    return ephemeral(`Goal \`${goal.goalId}\` is ${goal.status}: it takes no more revisions.`);
  }
  return requestRevision(deps, parsed.data, goal.goalId, command.directive);
}

async function requestRevision(
  deps: SlackDoorDeps,
  slash: SlashCommand,
  goalId: string,
  directive: Exclude<SlackGoalCommand["directive"], { kind: "status" }>,
): Promise<APIGatewayProxyResult> {
  if (directive.text.length > MAX_REVISION_TEXT) {
    return ephemeral(`The revision text is longer than ${MAX_REVISION_TEXT} characters.`);
  }
  const revisionId = deps.newRevisionId();
  const type = directiveRevisionType(directive);
  await deps.publisher.publish({
    detailType: HUMAN_INPUT_DETAIL_TYPES.revisionRequested,
    detail: {
      goalId,
      revisionId,
      type,
      content: directive.text,
      ...(directive.kind === "redirect" && directive.checks ? { successChecks: [...directive.checks] } : {}),
      requestedBy: slackActor(slash.user_id),
      channel: "slack",
      requestedAt: deps.now().toISOString(),
    },
  });
  deps.logger.info("slack revision requested", { goalId, revisionId, type, user: slash.user_id });
  return inChannelMessage(
    `${whoText(slackActor(slash.user_id))} asked for a \`${type}\` revision of goal \`${goalId}\` (\`${revisionId}\`): ` +
      `"${escapeMrkdwn(clip(directive.text, 1000))}". It applies at the goal's next step boundary.`,
  );
}
