import type { GoalEvent } from "../../../lambdas/core/goal/goal-event";
import type { GoalSnapshot } from "../../../lambdas/core/goal/goal-record";
import type { GoalDetails } from "../../client/index";

/** What the compact view shows: the snapshot, the details (checks, plan) and the latest event. */
export interface LiveState {
  readonly snapshot: GoalSnapshot;
  readonly details?: GoalDetails;
  readonly lastEvent?: GoalEvent;
}

const CHECK_MARKS = { met: "✓", partial: "◐", not_met: "○" } as const;
const STEP_MARKS: Readonly<Record<string, string>> = {
  done: "✓",
  running: "▶",
  failed: "✗",
  skipped: "-",
  pending: "○",
};
const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The evidence behind a check as one short phrase: what proves it, and how strongly. */
export function evidencePhrase(evidence: NonNullable<GoalDetails["checks"][number]["evidence"]>): string {
  switch (evidence.kind) {
    case "artifact":
      return `artifact ${evidence.path} sha256 ${evidence.sha256.slice(0, 12)}`;
    case "tool_result":
      return `tool ${evidence.tool} result sha256 ${evidence.resultSha256.slice(0, 12)}`;
    case "approval":
      return `approved by ${evidence.decidedBy}`;
    case "model_judge":
      return `model judgement (weak): ${clip(evidence.verdict, 60)}`;
  }
}

/** What the goal is doing now, from its latest event: `calling workspace_write`, `waiting: approve …`. */
export function activityOf(state: LiveState): string {
  const { snapshot, lastEvent } = state;
  if (snapshot.status === "waiting" && snapshot.waitingFor) return `waiting: ${snapshot.waitingFor.reason}`;
  if (snapshot.status !== "running") return snapshot.status;
  const { activity } = snapshot;
  if (activity?.kind === "waiting_for_capacity") {
    return `waiting for ${activity.model} capacity (${activity.role}, ${activity.reason}) until ${activity.until.slice(11, 19)}`;
  }
  if (lastEvent === undefined) return snapshot.activeTask ?? "starting";
  const tool = typeof lastEvent.name === "string" ? lastEvent.name : undefined;
  switch (lastEvent.type) {
    case "tool.called":
      return `called ${tool ?? "a tool"}`;
    case "model.usage":
      return `${String(lastEvent.role ?? "model")} answered (${String(lastEvent.outputTokens ?? 0)} tokens out)`;
    case "model.turn":
      return "acting on the model's turn";
    default:
      return `${lastEvent.type}${snapshot.activeTask ? ` · ${snapshot.activeTask}` : ""}`;
  }
}

function money(usd: number): string {
  return `$${usd.toFixed(4)}`;
}

/**
 * The compact live view as lines: a header (status, pattern, run, step, cost), the checklist with
 * the evidence of each met check, the plan's steps, and the current activity. `frame` turns the
 * spinner on a terminal; undefined prints no spinner (a pipe or a log).
 */
export function renderLiveView(state: LiveState, frame?: number): string[] {
  const { snapshot, details } = state;
  const spinner = frame === undefined ? "" : `${SPINNER[frame % SPINNER.length]} `;
  const tokens = snapshot.usage.inputTokens + snapshot.usage.outputTokens;
  const lines = [
    `${spinner}Goal ${snapshot.goalId} ${snapshot.status} · ${snapshot.pattern} · run ${snapshot.runId} · step ${snapshot.steps} · ${money(snapshot.usage.costUsd)} · ${tokens} tokens`,
    `  ${clip(snapshot.objective, 100)}`,
    "  Checks",
  ];
  const checks = details?.checks ?? [];
  if (checks.length === 0) {
    for (const id of snapshot.satisfiedChecks) lines.push(`    ✓ ${id}`);
    for (const id of snapshot.unsatisfiedChecks) lines.push(`    ○ ${id}`);
  }
  for (const check of checks) {
    const mark = CHECK_MARKS[check.state];
    const proof = check.evidence ? `  ${evidencePhrase(check.evidence)}` : "";
    lines.push(`    ${mark} ${check.id}${proof}`);
  }
  const plan = details?.plan;
  if (plan && plan.steps.length > 0) {
    lines.push(`  Plan v${plan.version}`);
    for (const step of plan.steps) {
      lines.push(`    ${STEP_MARKS[step.status] ?? "○"} ${step.id} ${clip(step.action, 70)}`);
    }
  }
  if (details && details.lessons.length > 0) {
    lines.push(`  Lessons (${details.attempts} attempts)`);
    for (const lesson of details.lessons) lines.push(`    ${lesson.attempt}. ${clip(lesson.text, 90)}`);
  }
  lines.push(`  Now: ${activityOf(state)}`);
  return lines;
}
