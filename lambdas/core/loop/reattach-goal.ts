import type { GoalRecord } from "../goal/goal-record";
import type { Pattern } from "../goal/goal-spec";
import { reattachRun } from "../goal/reattach-run";
import { runStateMachineArn } from "../goal/runs-on";
import type { Clock } from "../ports/clock";
import type { GoalStore } from "../ports/goal-store";
import type { RunIsLive, StartRun } from "../ports/run-control";
import { nextRunId } from "./run-ids";
import { readGoal, updateGoal } from "./update-goal";

export interface ReattachGoalPorts {
  readonly goals: GoalStore;
  readonly now: Clock;
}

/** A goal re-attached to a new run: start that run's execution next. */
export interface ReattachedGoal {
  readonly goalId: string;
  readonly runId: string;
  readonly previousRunId: string;
  readonly status: GoalRecord["status"];
  readonly pattern: GoalRecord["pattern"];
  /** The approval a waiting goal still waits on; null for a running goal. */
  readonly approvalId: string | null;
}

/**
 * Commits `reattachRun` for a `running` or `waiting` goal whose run died with its process: the next
 * sequential run id, status kept. Anything else, or a goal another process re-attached meanwhile
 * (its run id moved on from the dead one), is left alone and answers undefined.
 */
export async function reattachGoal(
  ports: ReattachGoalPorts,
  goalId: string,
  /** The run known to be over; by default the one the goal has when read. */
  knownDeadRunId?: string,
): Promise<ReattachedGoal | undefined> {
  const loaded = await readGoal(ports.goals, goalId);
  const deadRunId = knownDeadRunId ?? loaded.record.runId;
  const now = ports.now();
  let changed = false;
  const { record } = await updateGoal(ports.goals, loaded, (current) => {
    changed = false;
    if (current.runId !== deadRunId || (current.status !== "running" && current.status !== "waiting")) {
      return undefined;
    }
    // Waiting for its tenant's turn, it has no run yet: its turn, not a new run, starts it.
    if (current.waitingFor?.kind === "capacity") return undefined;
    changed = true;
    return reattachRun(current, { newRunId: nextRunId(current.runId), now });
  });
  if (!changed || record.runId === deadRunId) return undefined;
  return {
    goalId,
    runId: record.runId,
    previousRunId: deadRunId,
    status: record.status,
    pattern: record.pattern,
    approvalId: record.status === "waiting" ? (record.waitingFor?.approvalId ?? null) : null,
  };
}

export interface ReviveRunPorts extends ReattachGoalPorts {
  readonly runIsLive: RunIsLive;
  readonly startRun: StartRun;
  /** Pattern → state machine ARN (STATE_MACHINE_ARNS). */
  readonly stateMachineArns: Readonly<Partial<Record<Pattern, string>>>;
}

/**
 * A `running` or `waiting` goal whose run's execution is over gets a new run (`reattachGoal`) and
 * that run's execution is started: a goal never sits running with nothing to move it. A goal whose
 * run is live, or that is not running or waiting, is left alone (undefined). Two callers racing
 * start one new run: the re-attach is a conditional write, and the start is idempotent by name.
 */
export async function reviveDeadRun(
  ports: ReviveRunPorts,
  goalId: string,
): Promise<ReattachedGoal | undefined> {
  const found = await ports.goals.getGoal(goalId);
  if (!found) return undefined;
  const { record } = found;
  if (record.status !== "running" && record.status !== "waiting") return undefined;
  if (record.status === "waiting" && record.waitingFor?.kind === "capacity") return undefined;
  // The new run starts on the version the goal runs on (a goal from before versions: the live one).
  const stateMachineArn = runStateMachineArn(record, ports.stateMachineArns);
  if (stateMachineArn === undefined) return undefined;
  if (await ports.runIsLive({ stateMachineArn, goalId, runId: record.runId })) return undefined;
  const reattached = await reattachGoal(ports, goalId, record.runId);
  if (reattached) await ports.startRun({ stateMachineArn, goalId, runId: reattached.runId });
  return reattached;
}
