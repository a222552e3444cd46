import type { GoalSnapshot } from "../../goal/goal-record";
import { clip } from "../../goal/text";
import { escapeMrkdwn, mrkdwn, type SlackBlock, type SlackMessage } from "./block-kit";

function usd(cost: number): string {
  return `$${cost.toFixed(cost < 1 ? 4 : 2)}`;
}

function checkList(ids: readonly string[]): string {
  return ids.length === 0 ? "none" : escapeMrkdwn(clip(ids.join(", "), 900));
}

/** The goal's snapshot: objective, status, step, revision, cost and the checks. */
export function snapshotBlocks(goal: GoalSnapshot | undefined, goalId: string): SlackBlock[] {
  if (goal === undefined) {
    return [
      { type: "context", elements: [mrkdwn(`Goal \`${escapeMrkdwn(goalId)}\` (snapshot unavailable)`)] },
    ];
  }
  return [
    { type: "section", text: mrkdwn(`*Objective*\n${escapeMrkdwn(clip(goal.objective, 2000))}`) },
    {
      type: "section",
      fields: [
        mrkdwn(`*Goal*\n\`${escapeMrkdwn(goal.goalId)}\``),
        mrkdwn(`*Status*\n${goal.status}`),
        mrkdwn(`*Step*\n${goal.steps}`),
        mrkdwn(`*Revision*\n${goal.revision}`),
        mrkdwn(`*Cost*\n${usd(goal.usage.costUsd)}`),
      ],
    },
    {
      type: "context",
      elements: [
        mrkdwn(`:white_check_mark: Satisfied: ${checkList(goal.satisfiedChecks)}`),
        mrkdwn(`:hourglass_flowing_sand: Unsatisfied: ${checkList(goal.unsatisfiedChecks)}`),
      ],
    },
  ];
}

/** The answer to `/goal <goalId> status`: the snapshot, plus what the goal waits for or why it stopped. */
export function goalStatusMessage(goal: GoalSnapshot): SlackMessage {
  const extra: SlackBlock[] = [];
  if (goal.waitingFor !== null) {
    const reason = escapeMrkdwn(clip(goal.waitingFor.reason, 500));
    extra.push({
      type: "context",
      elements: [
        mrkdwn(
          `Waiting for ${goal.waitingFor.kind} \`${escapeMrkdwn(goal.waitingFor.approvalId)}\`: ${reason}`,
        ),
      ],
    });
  }
  if (goal.stopReason !== null) {
    const why = escapeMrkdwn(
      clip(`${goal.stopReason.kind} (${goal.stopReason.detail}): ${goal.stopReason.message}`, 500),
    );
    extra.push({ type: "context", elements: [mrkdwn(`Stopped: ${why}`)] });
  }
  return {
    text: `Goal ${goal.goalId} is ${goal.status} (step ${goal.steps}, revision ${goal.revision})`,
    blocks: [...snapshotBlocks(goal, goal.goalId), ...extra],
  };
}
