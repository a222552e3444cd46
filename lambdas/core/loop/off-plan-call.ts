import type { GoalRecord } from "../goal/goal-record";
import { type PlanStepState, stepById } from "../goal/plan";
import { sameRun } from "../goal/run-lineage";
import type { ToolUseBlock } from "../ports/model-client";

/**
 * The plan step an executor turn of (`runId`, `iteration`) was made for, if the goal runs a plan and
 * that step is the current one: started by any run of the turn's lineage in that iteration.
 */
export function executedStep(
  record: GoalRecord,
  position: { readonly runId: string; readonly iteration: number },
): PlanStepState | undefined {
  const current = record.planState?.current;
  if (!current || !sameRun(record, current, position)) return undefined;
  return record.planState && stepById(record.planState, current.stepId);
}

/**
 * Where the executor turn that `iteration` of the current run acts on is checkpointed, when a
 * Plan-and-Execute batch made it: under a key of its own, not the iteration's (see BatchTurnKey).
 */
export function batchTurnOf(
  record: GoalRecord,
  iteration: number,
): { readonly runId: string; readonly iteration: number; readonly ordinal: number } | undefined {
  const current = record.planState?.current;
  if (!current?.turn || !sameRun(record, current, { runId: record.runId, iteration })) return undefined;
  return current.turn;
}

/**
 * Whether a call leaves the plan: its step names a tool and the call uses another one. The executor
 * is offered every granted tool, so that its prompt's prefix (the tools, then the instructions and
 * the goal block) is the same for every step and the model's prompt cache can hit; the step's own
 * tool is enforced here instead, where the call is run.
 */
export function isOffPlan(
  step: PlanStepState | undefined,
  call: Pick<ToolUseBlock, "name">,
): step is PlanStepState & { tool: string } {
  return step?.tool !== undefined && call.name !== step.tool;
}
