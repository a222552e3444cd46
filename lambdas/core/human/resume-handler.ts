import type { GoalChange } from "../goal/goal-change";
import { goalEvent, settle } from "../goal/goal-change";
import { matchesResumeCondition, resumeFromWait, terminate } from "../goal/goal-lifecycle";
import type { GoalRecord } from "../goal/goal-record";
import { extendLimits } from "../goal/limits";
import { reached } from "../goal/loop-marker";
import { confirmContract, rejectContract } from "../goal/revisions";
import { sameRun } from "../goal/run-lineage";
import { decideGate, nextAfterGate } from "../loop/gates/action-gate";
import { CHECK_APPROVAL_KIND, decideCheckApproval } from "../loop/gates/check-approval";
import { CONTRACT_KIND } from "../loop/gates/contract-confirmation";
import {
  approveStepDecision,
  STEP_DECISION_KIND,
  terminateOnStepDecision,
} from "../loop/gates/step-decision";
import type { StepResult } from "../loop/step-result";
import { chain, updateGoal } from "../loop/update-goal";
import type { DeadlineSchedule } from "../ports/deadline-schedule";
import type { Approval, GoalStore } from "../ports/goal-store";
import { type TaskCallback, TaskTokenGoneError } from "../ports/task-callback";
import {
  type ApprovalDecidedDetail,
  HUMAN_INPUT_DETAIL_TYPES,
  type HumanInputEvent,
} from "./human-input-events";
import { limitExtension } from "./limit-extension";

export interface ApprovalDecidedPorts {
  readonly goals: GoalStore;
  readonly callback: TaskCallback;
  readonly now: () => Date;
  /**
   * Gives the goal a new run when its current one is over (`reviveDeadRun`): called when the token
   * the decision was sent to belongs to a wait that ended and no newer wait took its place. Without
   * it (RequestApproval delivering to its own live token) nothing is revived.
   */
  readonly reviveRun?: (goalId: string) => Promise<unknown>;
  /** Moves the goal's deadline schedule when a limit decision moved the deadline. */
  readonly deadlines?: DeadlineSchedule;
}

/** How often a decision follows a token that a newer wait of the same approval replaced. */
const MAX_REDELIVERIES = 3;

/** What the resume handler did with one event; `reason` is for the log line (never holds a token). */
export interface ResumeOutcome {
  readonly outcome: "woke" | "superseded" | "resent" | "recorded" | "ignored" | "delegated";
  readonly reason: string;
  readonly result?: unknown;
}

/** The other human inputs, handled by their own core functions (handle-*.ts beside this file). */
export interface OtherInputHandlers {
  readonly revision: (
    detail: Extract<HumanInputEvent, { detailType: "Revision Requested" }>["detail"],
  ) => Promise<unknown>;
  readonly pause: (
    detail: Extract<HumanInputEvent, { detailType: "Pause Requested" }>["detail"],
  ) => Promise<unknown>;
  readonly resume: (
    detail: Extract<HumanInputEvent, { detailType: "Resume Requested" }>["detail"],
  ) => Promise<unknown>;
  readonly retry: (
    detail: Extract<HumanInputEvent, { detailType: "Retry Requested" }>["detail"],
  ) => Promise<unknown>;
  readonly cancel: (
    detail: Extract<HumanInputEvent, { detailType: "Cancel Requested" }>["detail"],
  ) => Promise<unknown>;
}

/**
 * The one resume handler behind the bus (DESIGN §5). Only `Approval Decided` can wake a waiting goal,
 * and only the decision for the approval it waits for: revisions, pauses, resumes, retries and cancels go to their
 * own handlers, which never answer a task token.
 */
export async function handleHumanInput(
  ports: ApprovalDecidedPorts,
  others: OtherInputHandlers,
  event: HumanInputEvent,
): Promise<ResumeOutcome> {
  switch (event.detailType) {
    case HUMAN_INPUT_DETAIL_TYPES.approvalDecided:
      return handleApprovalDecided(ports, event.detail);
    case HUMAN_INPUT_DETAIL_TYPES.revisionRequested:
      return { outcome: "delegated", reason: "revision", result: await others.revision(event.detail) };
    case HUMAN_INPUT_DETAIL_TYPES.pauseRequested:
      return { outcome: "delegated", reason: "pause", result: await others.pause(event.detail) };
    case HUMAN_INPUT_DETAIL_TYPES.resumeRequested:
      return { outcome: "delegated", reason: "resume", result: await others.resume(event.detail) };
    case HUMAN_INPUT_DETAIL_TYPES.retryRequested:
      return { outcome: "delegated", reason: "retry", result: await others.retry(event.detail) };
    case HUMAN_INPUT_DETAIL_TYPES.cancelRequested:
      return { outcome: "delegated", reason: "cancel", result: await others.cancel(event.detail) };
  }
}

/**
 * `Approval Decided`: when the goal waits for exactly this approval, at the revision it was asked
 * against, the goal goes back to running with the decision recorded, then the token is answered
 * with the next step (`act`; for a limit decision `verify` after the extension, or `terminated`).
 * A goal revised since the request gets no stale approval: the token is answered with `verify` and
 * the gate asks again. Duplicates and late events change nothing. The decision is read from the
 * stored approval (the event only names it), so RequestApproval can deliver one it finds taken.
 */
export async function handleApprovalDecided(
  ports: ApprovalDecidedPorts,
  detail: Pick<ApprovalDecidedDetail, "approvalId" | "goalId">,
): Promise<ResumeOutcome> {
  const approval = await ports.goals.getApproval(detail.approvalId);
  if (!approval || approval.goalId !== detail.goalId) {
    return { outcome: "ignored", reason: `no approval ${detail.approvalId} for goal ${detail.goalId}` };
  }
  const decision = approval.decision;
  if ((approval.status !== "approved" && approval.status !== "rejected") || !decision) {
    return { outcome: "ignored", reason: `approval ${approval.approvalId} is ${approval.status}` };
  }
  const loaded = await ports.goals.getGoal(approval.goalId);
  if (!loaded) return { outcome: "ignored", reason: `goal ${approval.goalId} does not exist` };
  const event = { eventType: HUMAN_INPUT_DETAIL_TYPES.approvalDecided, approvalId: approval.approvalId };
  if (!matchesResumeCondition(loaded.record, event)) return resendIfLost(ports, loaded.record, approval);

  const now = ports.now();
  let answer: StepResult["next"] = "verify";
  let superseded = false;
  const { record } = await updateGoal(ports.goals, loaded, (current) => {
    if (!matchesResumeCondition(current, event)) return undefined;
    superseded =
      current.revision !== approval.revision || current.resumeCondition?.revision !== approval.revision;
    const wake = wakeChange(current, approval, decision, superseded, now);
    answer = wake.next;
    return wake.change;
  });
  if (record.status === "waiting" && record.waitingFor?.approvalId === approval.approvalId) {
    return { outcome: "ignored", reason: "the goal changed while it was being woken; a redelivery retries" };
  }
  const deadline = record.spec.limits.deadline;
  if (deadline !== undefined && deadline !== loaded.record.spec.limits.deadline) {
    await ports.deadlines?.set(record.goalId, deadline);
  }
  const output: StepResult = {
    goalId: record.goalId,
    runId: record.runId,
    iteration: record.runIteration,
    next: answer,
  };
  const delivery = await deliver(ports, approval, output);
  if (!delivery.delivered)
    return { outcome: "recorded", reason: `the decision is recorded; ${delivery.why}` };
  return superseded
    ? {
        outcome: "superseded",
        reason: `goal revised to ${record.revision} since approval at ${approval.revision}`,
      }
    : { outcome: "woke", reason: `${decision.decision} → ${answer}` };
}

interface Wake {
  readonly change: GoalChange;
  readonly next: StepResult["next"];
}

function wakeChange(
  record: GoalRecord,
  approval: Approval,
  decision: NonNullable<Approval["decision"]>,
  superseded: boolean,
  now: Date,
): Wake {
  const event = { eventType: HUMAN_INPUT_DETAIL_TYPES.approvalDecided, approvalId: approval.approvalId };
  const decided = (next: GoalRecord) =>
    settle(next, [
      goalEvent(next, "approval.decided", now, {
        approvalId: approval.approvalId,
        decision: decision.decision,
        decidedBy: decision.decidedBy,
        applied: !superseded,
        ...(superseded ? { supersededBy: `revision ${record.revision}` } : {}),
      }),
    ]);
  const isLimit = record.waitingFor?.kind === "decision";
  const onContract = CONTRACT_ANSWERS[approval.action.kind];
  if (onContract) {
    const answer = {
      decision: decision.decision,
      decidedBy: decision.decidedBy,
      approvalId: approval.approvalId,
      ...(decision.comment === undefined ? {} : { comment: decision.comment }),
    };
    const change = chain(
      record,
      decided,
      (next) => resumeFromWait(next, event, "verify", now),
      (next) => onContract(next, answer, superseded, now),
    );
    return { change, next: "verify" };
  }
  if (!superseded && approval.action.kind === STEP_DECISION_KIND) {
    // A plan step failed unrecoverably: approve → Observe replans around it; reject → terminated.
    if (decision.decision === "reject") {
      const change = chain(record, decided, (next) => terminateOnStepDecision(next, decision.decidedBy, now));
      return { change, next: "terminated" };
    }
    const details = {
      decidedBy: decision.decidedBy,
      ...(decision.comment === undefined ? {} : { comment: decision.comment }),
    };
    const change = chain(
      record,
      decided,
      (next) => resumeFromWait(next, event, "verify", now),
      (next) => approveStepDecision(next, details, now),
    );
    return { change, next: "verify" };
  }
  if (superseded) {
    // Never apply a stale approval: back to the gate, which asks again against the new revision.
    const change = chain(record, decided, (next) => resumeFromWait(next, event, "verify", now), reopenGate);
    return { change, next: "verify" };
  }
  if (isLimit) {
    const limit = record.stopReason?.kind === "limit" ? record.stopReason : undefined;
    if (decision.decision === "reject" || !limit) {
      const reason = {
        kind: "limit" as const,
        detail: limit?.detail ?? "limit",
        message: `${limit?.message ?? "limit reached"}; ${decision.decidedBy} chose to terminate`,
      };
      return { change: chain(record, decided, (next) => terminate(next, reason, now)), next: "terminated" };
    }
    const detail = limit.detail;
    const change = chain(
      record,
      decided,
      (next) => resumeFromWait(next, event, "verify", now),
      (next) =>
        extendLimits(
          next,
          limitExtension(next, isLimitName(detail) ? detail : "maxSteps", decision.comment, now),
          decision.decidedBy,
          now,
        ),
    );
    return { change, next: "verify" };
  }
  const outcome = decision.decision === "approve" ? "approved" : "rejected";
  // Act obeys a decided tool gate; a decided plan gate goes back to Observe (plan_execute).
  const after = nextAfterGate(record.actionGate);
  const change = chain(
    record,
    decided,
    (next) => resumeFromWait(next, event, after, now),
    (next) =>
      decideGate(
        next,
        outcome,
        {
          decidedBy: decision.decidedBy,
          ...(decision.comment === undefined ? {} : { comment: decision.comment }),
        },
        now,
      ),
  );
  return { change, next: after };
}

type ContractAnswer = Parameters<typeof decideCheckApproval>[1];

/**
 * Answers about the goal's contract; the goal runs on (`verify`) after each. A new contract:
 * confirmed, the proposed checks become the goal's; rejected, the goal holds (paused by the loop)
 * until a revision supplies checks. A success check: the answer is its evidence, or feedback for the
 * model. Either asked at an older revision is void (a dropped check approval is asked again).
 */
const CONTRACT_ANSWERS: Readonly<
  Record<
    string,
    (record: GoalRecord, answer: ContractAnswer, superseded: boolean, now: Date) => GoalChange | undefined
  >
> = {
  [CONTRACT_KIND]: (record, answer, superseded, now) => {
    if (superseded) return undefined;
    return answer.decision === "approve"
      ? confirmContract(record, answer, now)
      : rejectContract(record, answer, now);
  },
  [CHECK_APPROVAL_KIND]: (record, answer, superseded, now) =>
    superseded ? dropCheckApproval(record) : decideCheckApproval(record, answer, now),
};

/** The check is asked again: its approval was for an older revision of the goal. */
function dropCheckApproval(record: GoalRecord): GoalChange {
  const { checkApproval: _stale, ...rest } = record;
  return settle(rest, []);
}

/** The gate asks again: its approval was for an older revision of the goal. */
function reopenGate(record: GoalRecord): GoalChange | undefined {
  if (!record.actionGate) return undefined;
  const { approvalId: _stale, ...gate } = record.actionGate;
  return settle({ ...record, actionGate: { ...gate, outcome: "pending" } }, []);
}

const LIMIT_NAMES = new Set(["maxSteps", "maxCostUsd", "deadline", "maxReplans", "maxAttempts"]);
function isLimitName(
  value: string,
): value is "maxSteps" | "maxCostUsd" | "deadline" | "maxReplans" | "maxAttempts" {
  return LIMIT_NAMES.has(value);
}

/**
 * A duplicate of a decision already applied changes nothing — except when the goal was woken but the
 * token never reached the run (the send failed and EventBridge redelivers): then the run still waits
 * before Act, and the same answer is sent again.
 */
async function resendIfLost(
  ports: ApprovalDecidedPorts,
  record: GoalRecord,
  approval: Approval,
): Promise<ResumeOutcome> {
  if (record.status === "running" && record.checkApproval?.approvalId === approval.approvalId) {
    // A decided success check: "verify" again is harmless to a run that moved on (its token is gone).
    const output = { goalId: record.goalId, runId: record.runId, iteration: record.runIteration };
    const delivery = await deliver(ports, approval, { ...output, next: "verify" });
    if (!delivery.delivered)
      return { outcome: "ignored", reason: `the check's wait is over; ${delivery.why}` };
    return { outcome: "resent", reason: "the goal was woken but its run had not been answered" };
  }
  const gate = record.actionGate;
  const lost =
    record.status === "running" &&
    gate?.approvalId === approval.approvalId &&
    gate.outcome !== "pending" &&
    sameRun(record, gate, { runId: record.runId }) &&
    !reached(record, record.runId, gate.iteration, "acted");
  if (!lost) return { outcome: "ignored", reason: `goal is not waiting for approval ${approval.approvalId}` };
  const output: StepResult = {
    goalId: record.goalId,
    runId: record.runId,
    iteration: gate.iteration,
    next: nextAfterGate(gate),
  };
  const delivery = await deliver(ports, approval, output);
  if (!delivery.delivered) return { outcome: "recorded", reason: delivery.why };
  return { outcome: "resent", reason: "the goal was woken but its run had not been answered" };
}

/**
 * Answers the wait that holds the approval's token with `output`. A token whose wait is over is not
 * the end of it: when a newer wait of the same approval stored its own token meanwhile (a re-attached
 * or redriven run parking again), the answer follows it there; when none did, the decision stays
 * recorded on the goal and the goal's run is revived if it is over too (`reviveRun`), so a new run
 * acts on it. Whatever the order of "decided" and "parked", one of the two sides sees the other:
 * RequestApproval delivers a decision it finds already taken (`deliverTakenDecision`).
 */
async function deliver(
  ports: ApprovalDecidedPorts,
  approval: Approval,
  output: StepResult,
): Promise<{ readonly delivered: true } | { readonly delivered: false; readonly why: string }> {
  let token = approval.taskToken;
  for (let attempt = 0; attempt <= MAX_REDELIVERIES; attempt += 1) {
    try {
      await ports.callback.succeed(token, output);
      return { delivered: true };
    } catch (error) {
      if (!(error instanceof TaskTokenGoneError)) throw error;
      const latest = await ports.goals.getApproval(approval.approvalId);
      if (!latest || latest.taskToken === token) {
        await ports.reviveRun?.(approval.goalId);
        return {
          delivered: false,
          why: `the wait it was sent to is over (${error.reason}); the goal's run acts on it`,
        };
      }
      token = latest.taskToken;
    }
  }
  return { delivered: false, why: "the approval's wait kept changing; the goal's run acts on it" };
}
