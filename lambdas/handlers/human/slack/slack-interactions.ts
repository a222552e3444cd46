import type { APIGatewayProxyResult } from "aws-lambda";
import { APPROVAL_ID_PATTERN } from "../../../core/goal/goal-ids";
import { toSnapshot } from "../../../core/goal/snapshot";
import { decideApprovalFromDoor } from "../../../core/human/decide-approval";
import {
  APPROVAL_ACTION_IDS,
  type ApprovalMessageOutcome,
  approvalOutcomeMessage,
  approvalView,
} from "../../../core/human/slack/approval-message";
import type { SlackMessage } from "../../../core/human/slack/block-kit";
import type { SlackDoorAnswer } from "../../../core/human/slack/slack-door-answer";
import {
  type BlockActionsPayload,
  BlockActionsPayloadSchema,
  clickChannelOf,
  InteractionTypeSchema,
  slackActor,
} from "../../../core/human/slack/slack-payloads";
import {
  ephemeral,
  OK_EMPTY,
  refuseForeignResponseUrl,
  refuseNonApprover,
  requestTenant,
  slackAnswer,
  tenantGoal,
} from "./slack-answers";
import type { SlackDoorDeps } from "./slack-door-deps";

function payloadOf(rawBody: string): unknown {
  const text = new URLSearchParams(rawBody).get("payload");
  if (text === null) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function decisionOf(actionId: string): "approve" | "reject" | undefined {
  if (actionId === APPROVAL_ACTION_IDS.approve) return "approve";
  if (actionId === APPROVAL_ACTION_IDS.reject) return "reject";
  return undefined;
}

/**
 * `POST /slack/interactions` after the signature was verified: a click from someone not on the
 * approver list is refused (403) before anything is read; an approver's Approve or Reject click decides
 * the approval through the one decide function, for the tenant of the click's channel (else the
 * workspace's), and the answer is the message with the outcome in
 * place of the buttons. Interactions this app does not handle are acknowledged and ignored.
 */
export async function handleInteraction(
  deps: SlackDoorDeps,
  rawBody: string,
): Promise<APIGatewayProxyResult> {
  const payload = payloadOf(rawBody);
  const kind = InteractionTypeSchema.safeParse(payload);
  if (!kind.success) return ephemeral("This request carries no interaction payload.", 400);
  if (kind.data.type !== "block_actions") return OK_EMPTY;
  const parsed = BlockActionsPayloadSchema.safeParse(payload);
  if (!parsed.success) return ephemeral("This interaction is not one goal-loops understands.", 400);
  const foreign = refuseForeignResponseUrl(deps, parsed.data.response_url);
  if (foreign !== undefined) return foreign;
  const refused = await refuseNonApprover(deps, parsed.data.user.id, parsed.data.response_url);
  if (refused !== undefined) return refused;

  for (const action of parsed.data.actions) {
    const decision = decisionOf(action.action_id);
    if (decision === undefined || action.value === undefined) continue;
    // The buttons carry the approval id the system issued; anything else decides nothing.
    if (!APPROVAL_ID_PATTERN.test(action.value)) {
      deps.logger.warn("slack click refused: its value is not an approval id", { user: parsed.data.user.id });
      return ephemeral(
        "This button does not carry an approval id goal-loops issued; nothing was decided.",
        400,
      );
    }
    return decide(deps, parsed.data, action.value, decision);
  }
  return OK_EMPTY;
}

async function decide(
  deps: SlackDoorDeps,
  payload: BlockActionsPayload,
  approvalId: string,
  decision: "approve" | "reject",
): Promise<APIGatewayProxyResult> {
  // The channel's tenant when it has one, else the workspace's: another tenant's approval is unknown.
  const tenantId = requestTenant(deps, clickChannelOf(payload));
  const result = await decideApprovalFromDoor(
    { goals: deps.goals, publisher: deps.publisher, now: deps.now },
    {
      approvalId,
      decision,
      decidedBy: slackActor(payload.user.id),
      channel: "slack",
      tenantId,
    },
  );
  deps.logger.info("slack decision", {
    approvalId,
    decision,
    outcome: result.outcome,
    user: payload.user.id,
    tenantId,
  });
  const outcome: ApprovalMessageOutcome =
    result.outcome === "not_found"
      ? { kind: "not_found", approvalId }
      : { kind: result.outcome, approval: approvalView(result.approval) };
  const goal =
    outcome.kind === "not_found" ? undefined : await tenantGoal(deps, tenantId, outcome.approval.goalId);
  const message = replacement(approvalOutcomeMessage(outcome, goal && toSnapshot(goal)));
  await respondThroughUrl(deps, payload, message);
  return slackAnswer(200, message);
}

/** The updated message as an interaction answer: it replaces the one that was clicked. */
function replacement(message: SlackMessage): SlackDoorAnswer {
  return { replace_original: true, text: message.text, blocks: message.blocks };
}

/** Best effort within the responder's deadline: the answer's body carries the same message. */
async function respondThroughUrl(
  deps: SlackDoorDeps,
  payload: BlockActionsPayload,
  message: SlackDoorAnswer,
): Promise<void> {
  if (deps.responder === undefined || payload.response_url === undefined) return;
  try {
    await deps.responder.respond(payload.response_url, message);
  } catch (error) {
    deps.logger.warn("could not replace the Slack message through response_url", { error });
  }
}
