import { type GoalChange, goalEvent, settle } from "../../goal/goal-change";
import type { GoalRecord } from "../../goal/goal-record";
import { awaitLimitDecision, checkLimits } from "../../goal/limits";
import { type ApprovalNotifiers, notifyApprovalRequested } from "../../human/notify-approval";
import { handleApprovalDecided } from "../../human/resume-handler";
import type { Clock } from "../../ports/clock";
import type { DeadlineSchedule } from "../../ports/deadline-schedule";
import type { Approval, GoalStore } from "../../ports/goal-store";
import type { Outbox } from "../../ports/outbox";
import { type TaskCallback, TaskTokenGoneError } from "../../ports/task-callback";
import { isRunningIn, nextForStatus, type RunPosition, type StepResult } from "../step-result";
import { chain, readGoal, updateGoal } from "../update-goal";
import { gateOf, isPlanGate, nextAfterGate } from "./action-gate";
import { awaitDecision } from "./await-decision";
import {
  awaitCheckApproval,
  CHECK_APPROVAL_KIND,
  checkApprovalSummary,
  pendingCheckApproval,
} from "./check-approval";
import {
  awaitContractConfirmation,
  CONTRACT_KIND,
  contractSummary,
  pendingContractProposal,
} from "./contract-confirmation";
import { decideInAdvance, forkDecisionFor, useForkDecision } from "./fork-decisions";
import { humanDecisionKind } from "./human-decision";
import { awaitStepDecision, decisionSummary, pendingStepDecision, STEP_DECISION_KIND } from "./step-decision";

export interface RequestApprovalPorts {
  readonly goals: GoalStore;
  readonly outbox: Outbox;
  readonly callback: TaskCallback;
  readonly now: Clock;
  /** A random, unguessable id (never derived from the token). */
  readonly newApprovalId: () => string;
  /** Slack and email behind `approval.channels`; without them every channel gets a plain outbox record. */
  readonly notifiers?: ApprovalNotifiers;
  /**
   * The goal's deadline schedule, set again whenever a wait starts (idempotent): a wait never
   * outlives the deadline even if setting it at POST /goals failed. A failure is reported to
   * `onError` and the wait goes on (its approval still expires at the deadline).
   */
  readonly rearmDeadline?: {
    readonly schedule: DeadlineSchedule;
    readonly onError: (error: unknown) => void;
  };
}

export interface RequestApprovalInput extends RunPosition {
  /**
   * `approval` for a gated tool call (or a plan_execute plan), `limit_decision` for a reached limit,
   * `decision` for a plan step that failed unrecoverably (approve → replan around it, reject → terminated).
   */
  readonly next: "approval" | "limit_decision" | "decision";
  readonly taskToken: string;
}

export type RequestApprovalResult =
  | { readonly outcome: "requested" | "reused" | "delivered"; readonly approvalId: string }
  | { readonly outcome: "answered"; readonly next: StepResult["next"] };

/**
 * AwaitApproval's Lambda (invoked with `.waitForTaskToken`): stores the approval with the token, parks
 * the goal in `waiting` for exactly that approval and revision, records `approval.requested` (no
 * token) and puts the request in the outbox. The execution then waits until the resume handler
 * answers the token, or the task times out.
 *
 * A goal already waiting on a pending approval of the same action (a retried or re-attached wait)
 * keeps that approval; only its token is replaced. When nothing needs a human any more (the goal
 * stopped, the gate was decided, the limit cleared), the token is answered at once with the next step.
 */
export async function requestApproval(
  ports: RequestApprovalPorts,
  settings: { readonly approvalTimeoutSeconds: number },
  input: RequestApprovalInput,
): Promise<RequestApprovalResult> {
  const loaded = await readGoal(ports.goals, input.goalId);
  const position: RunPosition = { goalId: input.goalId, runId: input.runId, iteration: input.iteration };
  const reused = await reuseWaiting(ports, loaded.record, input);
  if (reused) return reused;

  const record = loaded.record;
  const now = ports.now();
  const request = isRunningIn(record, input.runId) ? whatToAsk(record, input, now) : undefined;
  if (!request) {
    const next = answerWithoutHuman(record, input, now);
    await ports.callback.succeed(input.taskToken, { ...position, next });
    return { outcome: "answered", next };
  }

  const approval: Approval = {
    approvalId: ports.newApprovalId(),
    goalId: record.goalId,
    tenantId: record.tenantId,
    runId: input.runId,
    status: "pending",
    action: request.action,
    revision: record.revision,
    taskToken: input.taskToken,
    requestedAt: now.toISOString(),
    expiresAt: approvalExpiry(record, now, settings.approvalTimeoutSeconds),
  };
  // A fork's request may have decided this very action in advance: nobody is asked, it is decided so.
  const inAdvance = forkDecisionFor(record, approval.action);
  await ports.goals.putApproval(approval);
  try {
    await updateGoal(ports.goals, loaded, (current) =>
      isRunningIn(current, input.runId)
        ? chain(
            current,
            (next) => request.park(next, approval, now),
            (next) => (inAdvance ? useForkDecision(next, inAdvance, approval.approvalId) : undefined),
          )
        : undefined,
    );
  } catch (error) {
    // The goal never waited for it: nobody must be able to decide this orphan.
    await ports.goals.decideApproval(approval.approvalId, { status: "superseded" }).catch(() => undefined);
    throw error;
  }
  if (inAdvance) {
    await decideInAdvance(ports.goals, approval.approvalId, inAdvance, now);
  } else {
    // Only a newly stored approval is announced: a reused one (above) was announced when it was stored.
    await notifyApprovalRequested(ports.outbox, approval, record, now, ports.notifiers);
  }
  await armDeadline(ports, record);
  return (
    (await deliverTakenDecision(ports, input, approval.approvalId)) ?? {
      outcome: "requested",
      approvalId: approval.approvalId,
    }
  );
}

/**
 * Once this wait holds the approval (its token stored, the goal parked): a decision somebody took
 * before that is delivered to this wait now. The resume handler may have found the goal not parked
 * yet (and left it), or answered an older wait's token (a re-attached or redriven run parking
 * again), so without this the decision would be lost. The handler does the same from its side
 * (`handleApprovalDecided` follows a replaced token): whichever order "decided" and "parked" come
 * in, one of the two sees the other, and a token answers once.
 */
async function deliverTakenDecision(
  ports: RequestApprovalPorts,
  input: RequestApprovalInput,
  approvalId: string,
): Promise<RequestApprovalResult | undefined> {
  const approval = await ports.goals.getApproval(approvalId);
  if (approval?.status !== "approved" && approval?.status !== "rejected") return undefined;
  const { record } = await readGoal(ports.goals, input.goalId);
  if (record.status === "waiting" && record.waitingFor?.approvalId === approvalId) {
    await handleApprovalDecided(ports, { approvalId, goalId: input.goalId });
    return { outcome: "delivered", approvalId };
  }
  // Woken already, its answer sent to a wait that is over: answer this one from the record.
  const next = answerWithoutHuman(record, input, ports.now());
  const position = { goalId: input.goalId, runId: input.runId, iteration: input.iteration };
  await ports.callback.succeed(input.taskToken, { ...position, next }).catch((error: unknown) => {
    // The handler followed the new token first: answered once, as it must be.
    if (!(error instanceof TaskTokenGoneError)) throw error;
  });
  return { outcome: "answered", next };
}

interface ApprovalRequest {
  readonly action: Approval["action"];
  readonly park: (record: GoalRecord, approval: Approval, now: Date) => GoalChange;
}

/** A request whose park is one wait (`awaitIt`) and the `approval.requested` event. */
function asking(
  action: Approval["action"],
  awaitIt: (record: GoalRecord, approvalId: string, now: Date) => GoalChange,
): ApprovalRequest {
  return {
    action,
    park: (current, approval, at) =>
      chain(
        current,
        (next) => awaitIt(next, approval.approvalId, at),
        (next) => requestedEvent(next, approval, at),
      ),
  };
}

function whatToAsk(record: GoalRecord, input: RequestApprovalInput, now: Date): ApprovalRequest | undefined {
  if (input.next === "limit_decision") {
    const limit = checkLimits(record, now);
    if (!limit) return undefined;
    return asking(
      { kind: "limit", summary: limit.message, fingerprint: `limit:${limit.detail}` },
      (next, approvalId, at) => awaitLimitDecision(next, limit, approvalId, at),
    );
  }
  if (input.next === "decision") return askDecision(record);
  const gate = gateOf(record, input);
  if (gate?.outcome !== "pending") return undefined;
  return asking(
    {
      kind: gateKind(gate),
      summary: gate.summary,
      fingerprint: gate.fingerprint,
      ...(gate.calls === undefined ? {} : { calls: gate.calls }),
    },
    (next, approvalId, at) =>
      chain(
        next,
        (current) => {
          const gated = current.actionGate && { ...current.actionGate, approvalId };
          return settle({ ...current, actionGate: gated ?? null }, []);
        },
        (current) =>
          awaitDecision(
            current,
            { kind: "approval", approvalId, reason: `approve before it runs: ${gate.summary}`.slice(0, 500) },
            at,
          ),
      ),
  );
}

/**
 * The `decision` route asks, in this order (see human-decision.ts): a step that failed
 * unrecoverably, a new contract to confirm, an `approval` success check to sign off.
 */
function askDecision(record: GoalRecord): ApprovalRequest | undefined {
  const decision = pendingStepDecision(record);
  if (decision) {
    const fingerprint = `decision:${decision.stepId}:${decision.errorName}`;
    return asking(
      { kind: STEP_DECISION_KIND, summary: decisionSummary(decision), fingerprint },
      awaitStepDecision,
    );
  }
  const proposal = pendingContractProposal(record);
  if (proposal) {
    const summary = contractSummary(record, proposal);
    const fingerprint = `contract:${proposal.revisionId}`;
    return asking({ kind: CONTRACT_KIND, summary, fingerprint }, awaitContractConfirmation);
  }
  const check = pendingCheckApproval(record);
  if (!check) return undefined;
  const summary = checkApprovalSummary(record, check.checkId);
  const fingerprint = `check:${check.checkId}:${check.atStep}`;
  return asking({ kind: CHECK_APPROVAL_KIND, summary, fingerprint }, awaitCheckApproval);
}

function requestedEvent(record: GoalRecord, approval: Approval, now: Date): GoalChange {
  return settle(record, [
    goalEvent(record, "approval.requested", now, {
      approvalId: approval.approvalId,
      kind: approval.action.kind,
      summary: approval.action.summary,
      revision: approval.revision,
      expiresAt: approval.expiresAt,
      channels: record.spec.approval.channels,
    }),
  ]);
}

/** The next step when no human is needed: the goal's own status, or on with the loop. */
function answerWithoutHuman(record: GoalRecord, input: RequestApprovalInput, now: Date): StepResult["next"] {
  if (!isRunningIn(record, input.runId)) {
    return record.runId === input.runId ? nextForStatus(record.status) : "stop";
  }
  if (input.next === "limit_decision") return checkLimits(record, now) ? "terminated" : "verify";
  if (input.next === "decision") return "verify";
  return nextAfterGate(gateOf(record, input));
}

/** The approval kind of a gate: a plan (plan_execute's plan approval) or tool calls. */
function gateKind(gate: Parameters<typeof isPlanGate>[0]): "plan" | "tool" {
  return isPlanGate(gate) ? "plan" : "tool";
}

/**
 * A goal already waiting on an approval of this very request keeps it (pending, or decided but not yet
 * delivered); the new token replaces the old, and a decision already taken is delivered to it.
 */
async function reuseWaiting(
  ports: RequestApprovalPorts,
  record: GoalRecord,
  input: RequestApprovalInput,
): Promise<RequestApprovalResult | undefined> {
  const approvalId = record.status === "waiting" ? record.waitingFor?.approvalId : undefined;
  if (!approvalId) return undefined;
  const approval = await ports.goals.getApproval(approvalId);
  const kinds = {
    limit_decision: "limit",
    decision: humanDecisionKind(record) ?? STEP_DECISION_KIND,
    approval: gateKind(record.actionGate),
  };
  const kind = kinds[input.next];
  // A decided one is kept too: its decision has not reached a live wait yet (the goal still waits).
  const open =
    approval?.status === "pending" || approval?.status === "approved" || approval?.status === "rejected";
  if (!approval || !open || approval.action.kind !== kind) return undefined;
  if ((kind === "tool" || kind === "plan") && record.actionGate?.fingerprint !== approval.action.fingerprint)
    return undefined;
  await ports.goals.replaceApprovalToken(approvalId, input.taskToken);
  return (await deliverTakenDecision(ports, input, approvalId)) ?? { outcome: "reused", approvalId };
}

/** Sets the goal's deadline schedule again as a wait starts; a failure is reported, never thrown. */
async function armDeadline(ports: RequestApprovalPorts, record: GoalRecord): Promise<void> {
  const deadline = record.spec.limits.deadline;
  if (deadline === undefined || ports.rearmDeadline === undefined) return;
  try {
    await ports.rearmDeadline.schedule.set(record.goalId, deadline);
  } catch (error) {
    ports.rearmDeadline.onError(error);
  }
}

/**
 * When the approval lapses: after the approval timeout, but never past a deadline still ahead (DESIGN
 * §3), where the goal's deadline schedule ends the wait. A decision on the deadline itself, asked
 * once it passed, gets the whole timeout.
 */
function approvalExpiry(record: GoalRecord, now: Date, timeoutSeconds: number): string {
  const timeout = now.getTime() + timeoutSeconds * 1000;
  const deadline = Date.parse(record.spec.limits.deadline ?? "");
  return new Date(deadline > now.getTime() ? Math.min(timeout, deadline) : timeout).toISOString();
}
