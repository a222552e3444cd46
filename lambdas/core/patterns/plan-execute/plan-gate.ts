import { canonicalJson, sha256Hex } from "../../goal/canonical-json";
import type { ActionGate } from "../../goal/goal-record";
import type { PlanState } from "../../goal/plan";
import { clip } from "../../goal/text";
import { PLAN_GATE_PREFIX } from "../../loop/gates/action-gate";
import type { RunPosition } from "../../loop/step-result";

const SUMMARY_CHARS = 2000;

/**
 * The approval gate on a plan version (DESIGN §5: after a plan is produced, after a large replan).
 * It binds to the plan's steps by hash; a human reads the steps in one line each.
 */
export function planGate(position: Pick<RunPosition, "runId" | "iteration">, state: PlanState): ActionGate {
  const steps = state.steps.map(({ id, action, tool, dependsOn }) => ({
    id,
    action,
    tool: tool ?? null,
    dependsOn,
  }));
  const summary = `plan v${state.version}: ${state.steps
    .map((step) => `${step.id}${step.tool ? ` (${step.tool})` : ""}: ${step.action}`)
    .join("; ")}`;
  return {
    runId: position.runId,
    iteration: position.iteration,
    toolUseIds: [`plan-v${state.version}`],
    fingerprint: `${PLAN_GATE_PREFIX}v${state.version}:${sha256Hex(canonicalJson(steps))}`,
    summary: clip(summary, SUMMARY_CHARS),
    outcome: "pending",
  };
}
