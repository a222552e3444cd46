import { terminate } from "../../goal/goal-lifecycle";
import type { GoalRecord } from "../../goal/goal-record";
import type { Clock } from "../../ports/clock";
import { ApprovalAlreadyDecidedError, type GoalStore } from "../../ports/goal-store";
import { type TaskCallback, TaskTokenGoneError } from "../../ports/task-callback";
import * as z from "../../zod";
import { readGoal, updateGoal } from "../update-goal";

/** The `source` of the events a goal's deadline schedule puts on the bus. */
export const DEADLINE_SOURCE = "goal-loops.deadline";
/** Their `detail-type`. */
export const DEADLINE_REACHED = "Deadline Reached";

export const DeadlineReachedDetailSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    goalId: z.string().check(z.minLength(1)),
    deadline: z.iso.datetime(),
  }),
);
export type DeadlineReachedDetail = z.infer<typeof DeadlineReachedDetailSchema>;

/** The EventBridge envelope of a `Deadline Reached` event. */
export const DeadlineEnvelopeSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    source: z.literal(DEADLINE_SOURCE),
    "detail-type": z.literal(DEADLINE_REACHED),
    detail: DeadlineReachedDetailSchema,
  }),
);

export interface EnforceDeadlinePorts {
  readonly goals: GoalStore;
  readonly callback: TaskCallback;
  readonly now: Clock;
}

export type DeadlineOutcome = {
  readonly outcome: "terminated" | "ignored";
  readonly reason: string;
};

/**
 * A goal's deadline came (DESIGN §3: limits hold while a goal waits or is paused). A `paused` goal is
 * `terminated`; so is a goal `waiting` for a human on anything but the deadline itself, and its wait
 * ends at once (the approval superseded, its run told `terminated`): no approval outlives the
 * deadline. A running goal is left to its loop, which asks for a limit decision at its next step,
 * and a goal waiting on that very decision keeps waiting for the human. A deadline moved later since
 * the schedule was set, or a goal that ended, changes nothing.
 */
export async function enforceDeadline(
  ports: EnforceDeadlinePorts,
  detail: DeadlineReachedDetail,
): Promise<DeadlineOutcome> {
  const loaded = await ports.goals.getGoal(detail.goalId);
  if (!loaded) return { outcome: "ignored", reason: `goal ${detail.goalId} does not exist` };
  const now = ports.now();
  const why = lapsed(loaded.record, now);
  if (!why)
    return { outcome: "ignored", reason: `goal is ${loaded.record.status}; nothing waits past its deadline` };
  // A goal waiting for its tenant's turn has no run and no approval to end: terminating it is all.
  const approvalId =
    loaded.record.waitingFor?.kind === "capacity" ? undefined : loaded.record.waitingFor?.approvalId;
  let subgoalToken: string | undefined;
  const { record } = await updateGoal(ports.goals, await readGoal(ports.goals, detail.goalId), (current) => {
    const still = lapsed(current, now);
    // A wait on sub-goals holds its token on the goal itself (terminating clears it).
    subgoalToken = current.waitingFor?.kind === "subgoal" ? current.subgoalWait?.taskToken : undefined;
    return still ? terminate(current, still, now) : undefined;
  });
  if (record.status !== "terminated") return { outcome: "ignored", reason: "the goal changed meanwhile" };
  if (subgoalToken !== undefined) await tellRun(ports, subgoalToken, record);
  else if (approvalId !== undefined) await endWait(ports, approvalId, record);
  return { outcome: "terminated", reason: why.message };
}

/** The stop reason when the goal is paused, or waiting on anything but the deadline, past its deadline. */
function lapsed(record: GoalRecord, now: Date) {
  const deadline = record.spec.limits.deadline;
  if (deadline === undefined || now.getTime() < Date.parse(deadline)) return undefined;
  const decidesDeadline = record.stopReason?.kind === "limit" && record.stopReason.detail === "deadline";
  if (record.status === "paused" || (record.status === "waiting" && !decidesDeadline)) {
    const while_ = record.status === "paused" ? "while paused" : `while waiting (${record.waitingFor?.kind})`;
    return {
      kind: "limit" as const,
      detail: "deadline",
      message: `deadline reached ${while_}: ${deadline} has passed`,
    };
  }
  return undefined;
}

/** The goal's approval can no longer be decided, and the run waiting on it is told the goal ended. */
async function endWait(ports: EnforceDeadlinePorts, approvalId: string, record: GoalRecord): Promise<void> {
  await ports.goals.decideApproval(approvalId, { status: "superseded" }).catch((error: unknown) => {
    if (!(error instanceof Error && error.name === ApprovalAlreadyDecidedError.name)) throw error;
  });
  const approval = await ports.goals.getApproval(approvalId);
  if (!approval) return;
  await tellRun(ports, approval.taskToken, record);
}

/** The run waiting on `taskToken` is told the goal ended (a wait already over needs no telling). */
async function tellRun(ports: EnforceDeadlinePorts, taskToken: string, record: GoalRecord): Promise<void> {
  const output = {
    goalId: record.goalId,
    runId: record.runId,
    iteration: record.runIteration,
    next: "terminated" as const,
  };
  await ports.callback.succeed(taskToken, output).catch((error: unknown) => {
    if (!(error instanceof TaskTokenGoneError)) throw error;
  });
}
