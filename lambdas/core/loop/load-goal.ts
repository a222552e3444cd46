import { goalEvent, settle } from "../goal/goal-change";
import type { GoalRecord } from "../goal/goal-record";
import { checkLimits } from "../goal/limits";
import { awaitsAct, markLoop, reached } from "../goal/loop-marker";
import type { Clock } from "../ports/clock";
import type { GoalStore } from "../ports/goal-store";
import { gateOf, nextAfterGate } from "./gates/action-gate";
import { pendingCheckApproval } from "./gates/check-approval";
import { pendingContractProposal } from "./gates/contract-confirmation";
import { waitsOnStepDecision } from "./gates/step-decision";
import { isRunningIn, nextForStatus, type RunPosition, type StepResult } from "./step-result";
import { chain, readGoal, updateGoal } from "./update-goal";

export interface LoadGoalPorts {
  readonly goals: GoalStore;
  readonly now: Clock;
}

export type LoadGoalInput = Pick<RunPosition, "goalId" | "runId"> & {
  /**
   * The deployed version whose state machine runs this run (its definition names it): what the
   * run's `run.started` event says it runs on. Absent: a definition from before versions.
   */
  readonly version?: string;
};

/**
 * LoadGoal, the first state of a run: asks for a limit decision when a limit is reached and records `run.started`
 * once per run. A goal waiting for a human in this run (re-attached) goes back to its wait. A goal that
 * is not running, or runs under another run id, is left alone. Revisions
 * queued in the inbox stay there: VerifyAndReason, the very next step, applies them with their
 * `reconcile` call (`applyQueuedRevisions`), so this step needs no model and no Bedrock access.
 */
export async function loadGoal(ports: LoadGoalPorts, input: LoadGoalInput): Promise<StepResult> {
  const { goalId, runId } = input;
  const initial = await readGoal(ports.goals, goalId);
  const now = ports.now();
  const { record } = await updateGoal(ports.goals, initial, (current) => {
    if (!isRunningIn(current, runId)) return undefined;
    const firstLoad = current.loop?.runId !== runId;
    const change = chain(current, (next) =>
      firstLoad ? startRun(next, runId, now, input.version) : undefined,
    );
    return change.events.length > 0 ? change : undefined;
  });
  if (record.runId !== runId) return { goalId, runId, iteration: 0, next: "stop" };
  const next =
    record.status === "running"
      ? nextOnLoad(record, now)
      : (awaitedInput(record) ?? nextForStatus(record.status));
  return { goalId, runId, iteration: record.runIteration, next };
}

/**
 * Where a running goal goes when a run (re)starts: a turn or gate it took over first, then a limit
 * decision when a limit is reached (before any model call), else the pattern's verify step.
 */
export function nextOnLoad(record: GoalRecord, now: Date): StepResult["next"] {
  return turnToFinish(record) ?? (checkLimits(record, now) ? "limit_decision" : "verify");
}

/**
 * What this run took over (re-attach, retry, redrive) that no Act has acted on yet. A gate of its
 * lineage's iteration: back to AwaitApproval while it is pending, else straight to what its decision
 * leads to — a human's decision given while no run could hear it (a restart, an execution that ended)
 * is acted on, never asked for again and never lost to a new reason call. A counted acting turn with
 * no gate: Act, which runs its calls or reuses the step an earlier run logged; verify must not count
 * that step first (it is not acted yet). Both come before the limit check: the turn was paid for.
 */
function turnToFinish(record: GoalRecord): "approval" | "act" | "verify" | undefined {
  const { runId, runIteration: iteration } = record;
  if (reached(record, runId, iteration, "acted")) return undefined;
  const gate = gateOf(record, { runId, iteration });
  if (gate) return gate.outcome === "pending" ? "approval" : nextAfterGate(gate);
  return awaitsAct(record, runId, iteration) ? "act" : undefined;
}

/**
 * A goal re-attached while it waits (`reattachRun`) goes straight back to AwaitApproval, which keeps
 * the pending approval and stores the new run's token: `approval` for a tool gate, `limit_decision`
 * for a limit, `decision` for a failed step or a success check put to a human; one waiting on its
 * sub-goals goes back to AwaitSubgoals (`subgoal`).
 */
function awaitedInput(
  record: GoalRecord,
): "approval" | "limit_decision" | "decision" | "subgoal" | undefined {
  if (record.status !== "waiting") return undefined;
  // Waiting on its sub-goals: AwaitSubgoals keeps the wait and stores the new run's token.
  if (record.waitingFor?.kind === "subgoal") return "subgoal";
  if (waitsOnStepDecision(record)) return "decision";
  // A new contract or a success check put to a human is asked through the `decision` route.
  const approvalId = record.waitingFor?.approvalId;
  const asked = [pendingContractProposal(record)?.approvalId, pendingCheckApproval(record)?.approvalId];
  if (approvalId !== undefined && asked.includes(approvalId)) return "decision";
  if (record.waitingFor?.kind === "decision") return "limit_decision";
  return record.waitingFor?.kind === "approval" ? "approval" : undefined;
}

function startRun(record: GoalRecord, runId: string, now: Date, version: string | undefined) {
  const marked = markLoop(record, { runId, iteration: record.runIteration, phase: "started" }, "verify", now);
  const started = goalEvent(marked.record, "run.started", now, {
    iteration: record.runIteration,
    previousRunId: record.previousRunId ?? null,
    revisionsQueued: record.inbox.length,
    version: version ?? record.runsOn?.version ?? null,
  });
  return settle(marked.record, [started]);
}
