import type { GoalEvent } from "../../../lambdas/core/goal/goal-event";
import type { GoalSnapshot } from "../../../lambdas/core/goal/goal-record";
import type { ApprovalView } from "../../client/index";

/** Fields every event has; the line shows the rest. */
const COMMON_FIELDS = new Set(["goalId", "seq", "type", "at", "runId"]);

/** One event as a terminal line: `#12 tool.called tool=workspace_write path=report.md`. */
export function formatEvent(event: GoalEvent): string {
  const details = Object.entries(event)
    .filter(([key]) => !COMMON_FIELDS.has(key))
    .map(([key, value]) => `${key}=${formatValue(value)}`)
    .join(" ");
  return `#${event.seq} ${event.type}${details ? ` ${details}` : ""}`;
}

function formatValue(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const oneLine = (text ?? "").replace(/\s+/g, " ");
  return oneLine.length > 120 ? `${oneLine.slice(0, 117)}...` : oneLine;
}

/** The progress line: step, status, evidence, tokens and cost. */
export function formatProgress(snapshot: GoalSnapshot): string {
  const checks = snapshot.satisfiedChecks.length + snapshot.unsatisfiedChecks.length;
  const { usage } = snapshot;
  return [
    `step ${snapshot.steps}`,
    snapshot.status,
    `evidence ${snapshot.satisfiedChecks.length}/${checks}`,
    `tokens ${usage.inputTokens} in / ${usage.outputTokens} out (${usage.cacheReadTokens} cached)`,
    `$${usage.costUsd.toFixed(4)}`,
  ].join(" · ");
}

/** The closing summary: outcome, evidence per check, why it stopped. */
export function formatSummary(snapshot: GoalSnapshot): string {
  const lines = [`Goal ${snapshot.goalId} ${snapshot.status} (${snapshot.pattern}, run ${snapshot.runId})`];
  for (const id of snapshot.satisfiedChecks) lines.push(`  ✓ ${id}`);
  for (const id of snapshot.unsatisfiedChecks) lines.push(`  ✗ ${id}`);
  if (snapshot.lastEvidence) {
    const { kind, checkId, strength, ...rest } = snapshot.lastEvidence;
    lines.push(`  last evidence: ${kind} for ${checkId} (${strength}) ${formatValue(rest)}`);
  }
  if (snapshot.stopReason && snapshot.status !== "completed") {
    const { kind, detail, message, role } = snapshot.stopReason;
    lines.push(`  stopped: ${kind} ${detail}${role ? ` (role ${role})` : ""}: ${message}`);
  }
  if (snapshot.waitingFor)
    lines.push(
      `  waiting for: ${snapshot.waitingFor.kind} ${snapshot.waitingFor.reason} (approval ${snapshot.waitingFor.approvalId})`,
    );
  lines.push(`  ${formatProgress(snapshot)}`);
  return lines.join("\n");
}

/** A pending approval as the `run` prompt and `status` show it: what exactly would be approved. */
export function formatApproval(approval: ApprovalView): string {
  return [
    `Approval ${approval.approvalId} for goal ${approval.goalId} (revision ${approval.revision}, run ${approval.runId})`,
    `  action: ${approval.action.kind}: ${formatValue(approval.action.summary)}`,
    `  expires: ${approval.expiresAt}`,
  ].join("\n");
}
