import type { GoalLoopsConfig } from "../config/goal-loops-config";
import { lambdaUnreachableReason } from "../config/lambda-reachable-url";
import { blocker, type CheckResult, ok, skip, warn } from "./checklist";

/**
 * The checks that need only the configuration: someone may approve, alarms reach someone, and every
 * URL the functions call is one Lambda can reach.
 */
export function checkConfiguration(config: GoalLoopsConfig): CheckResult[] {
  return [checkApprovers(config), checkAlarmEmail(config), ...checkUrls(config)];
}

function checkApprovers(config: GoalLoopsConfig): CheckResult {
  const check = "approvers";
  const { slack, email } = config.approvals;
  if (slack.approverUserIds.length === 0 && email.approvers.length === 0) {
    return blocker(
      check,
      "approvals.slack.approverUserIds and approvals.email.approvers are both empty: every approval click, link and /goal command would be refused, so a goal that needs a human waits until it times out",
    );
  }
  const doors = [
    slack.approverUserIds.length > 0 ? `${slack.approverUserIds.length} on Slack` : undefined,
    email.approvers.length > 0 ? `${email.approvers.length} by e-mail` : undefined,
  ].filter((door) => door !== undefined);
  if (email.approvers.length > 0 && email.sender === undefined) {
    return warn(
      check,
      `${doors.join(", ")}; approvals.email.sender is not set, so no approval e-mail is sent to the e-mail approvers`,
    );
  }
  return ok(check, doors.join(", "));
}

function checkAlarmEmail(config: GoalLoopsConfig): CheckResult {
  const check = "alarm e-mail";
  const address = config.operations.alarmEmail;
  if (address === undefined) {
    return warn(
      check,
      "operations.alarmEmail is not set: the alarms notify an SNS topic nobody is subscribed to",
    );
  }
  return ok(check, `${address} (confirm the SNS subscription e-mail once, after the deploy)`);
}

function checkUrls(config: GoalLoopsConfig): CheckResult[] {
  const urls = [
    ...config.tools.mcp.map((server, index) => ({ field: `tools.mcp.${index}.url`, url: server.url })),
    ...Object.entries(config.notify.channels).flatMap(([name, destination]) =>
      destination.type === "webhook" ? [{ field: `notify.channels.${name}.url`, url: destination.url }] : [],
    ),
  ];
  if (urls.length === 0) return [skip("MCP and webhook URLs", "none configured")];
  return urls.map(({ field, url }) => {
    const reason = lambdaUnreachableReason(url);
    return reason === undefined
      ? ok(
          field,
          `${url} (not loopback or link-local; whether it answers is for the deployed functions to find)`,
        )
      : blocker(
          field,
          `${url} is ${reason}: Lambda cannot reach it (and synth refuses it); give a URL reachable from Lambda`,
        );
  });
}
