import { settle } from "../../goal/goal-change";
import type { GoalRecord, PendingCorrection } from "../../goal/goal-record";
import { remainingBudgetUsd } from "../../goal/limits";
import { applyRevision, resolveCorrection } from "../../goal/revisions";
import { checkpointRunId } from "../../goal/run-takeover";
import { capacityContextOf } from "../../models/capacity/capacity-governor";
import { checkpointedCall } from "../../models/model-call";
import { recordModelUsage } from "../../models/model-prices";
import { modelFor } from "../../models/model-thinking";
import type { ModelTiers } from "../../models/model-tiers";
import type { Clock } from "../../ports/clock";
import type { GoalStore, VersionedGoal } from "../../ports/goal-store";
import type { ModelClient } from "../../ports/model-client";
import { holdForContract } from "../gates/contract-confirmation";
import { isRunningIn } from "../step-result";
import { chain, updateGoal } from "../update-goal";
import { type CompensationPorts, compensateLastAction } from "./compensate";
import { parseReconcile, reconcileRequest } from "./reconcile-prompt";
import { runSaga, startSaga } from "./saga";

export interface ApplyRevisionsPorts extends CompensationPorts {
  readonly goals: GoalStore;
  readonly model: ModelClient;
  readonly now: Clock;
}

export interface ApplyRevisionsInput {
  /** The goal as the step read it. */
  readonly loaded: VersionedGoal;
  /** The run applying them: only a goal running in it is changed. */
  readonly runId: string;
  /** The deployment's model for roles the GoalSpec does not name. */
  readonly models: ModelTiers;
}

/**
 * Applies the revisions queued in the goal's inbox at a step boundary, oldest first. Each gets a
 * `reconcile` call (checkpointed under the run's iteration and ordinal = the number of revisions
 * applied before it, so a retried step pays for none twice) against the goal as the revisions
 * before it left it; then `applyRevision` with its answer and the call's usage, in one commit.
 * Pending corrections (from `corrective` revisions) then run their compensation. Returns the goal
 * as stored afterwards; a goal not running in `runId` is returned untouched.
 */
export async function applyQueuedRevisions(
  ports: ApplyRevisionsPorts,
  input: ApplyRevisionsInput,
): Promise<VersionedGoal> {
  const { runId } = input;
  let current = input.loaded;
  for (;;) {
    const revision = current.record.inbox[0];
    if (!revision || !isRunningIn(current.record, runId)) break;
    const record = current.record;
    const key = {
      goalId: record.goalId,
      runId: checkpointRunId(record, { runId, iteration: record.runIteration }),
      iteration: record.runIteration,
      role: "reconcile" as const,
      ordinal: record.revisionLog.length,
    };
    const checkpoint = await checkpointedCall(
      ports,
      key,
      (call) =>
        reconcileRequest({
          record,
          revision,
          model: modelFor(record.spec, "reconcile", input.models),
          call,
        }),
      {
        budget: { remainingUsd: remainingBudgetUsd(record) },
        capacity: capacityContextOf(record),
        recordSchema: record.schema,
      },
    );
    const { turn } = checkpoint;
    const reconcile = parseReconcile(
      turn,
      record.spec.successChecks.map((check) => check.id),
    );
    const now = ports.now();
    current = await updateGoal(ports.goals, current, (latest) => {
      if (!isRunningIn(latest, runId) || latest.inbox[0]?.revisionId !== revision.revisionId)
        return undefined;
      return chain(
        latest,
        (next) => recordModelUsage(next, "reconcile", turn, now),
        (next) => applyRevision(next, revision.revisionId, { now, reconcile }),
      );
    });
    // Not applied (the goal stopped meanwhile): leave it queued for the next run.
    if (current.record.inbox[0]?.revisionId === revision.revisionId) break;
  }
  const compensated = await compensatePending(ports, current, runId);
  // A new objective without confirmed checks does no work: the goal pauses, saying how to go on.
  const now = ports.now();
  return updateGoal(ports.goals, compensated, (latest) =>
    isRunningIn(latest, runId) ? holdForContract(latest, now) : undefined,
  );
}

async function compensatePending(
  ports: ApplyRevisionsPorts,
  loaded: VersionedGoal,
  runId: string,
): Promise<VersionedGoal> {
  let current = loaded;
  for (;;) {
    const correction: PendingCorrection | undefined = current.record.pendingCorrections?.[0];
    if (!correction || !isRunningIn(current.record, runId)) return current;
    if (correction.fromStep !== undefined) {
      current = await correctiveSaga(ports, current, correction, correction.fromStep, runId);
      if (current.record.pendingCorrections?.some((item) => item.revisionId === correction.revisionId)) {
        return current;
      }
      continue;
    }
    const outcome = await compensateLastAction(ports, current.record, correction);
    const now = ports.now();
    current = await updateGoal(ports.goals, current, (latest: GoalRecord) => {
      const pending = latest.pendingCorrections ?? [];
      if (!isRunningIn(latest, runId) || !pending.some((item) => item.revisionId === correction.revisionId)) {
        return undefined;
      }
      const resolved = resolveCorrection(latest, correction.revisionId, now);
      return { ...resolved, events: resolved.events.map((event) => ({ ...event, ...outcome })) };
    });
    if (current.record.pendingCorrections?.some((item) => item.revisionId === correction.revisionId)) {
      return current;
    }
  }
}

/**
 * A corrective revision with a target: the saga of steps `fromStep` to the newest logged one (see
 * `runSaga`), started once under the revision's id; its last commit resolves the correction.
 */
async function correctiveSaga(
  ports: ApplyRevisionsPorts,
  loaded: VersionedGoal,
  correction: PendingCorrection,
  fromStep: number,
  runId: string,
): Promise<VersionedGoal> {
  const sagaId = `saga-${correction.revisionId}`;
  const newest =
    (await ports.stepLog.listRecentSteps(loaded.record.goalId, 1))[0]?.step ?? loaded.record.steps;
  const now = ports.now();
  const started = await updateGoal(ports.goals, loaded, (latest) =>
    isRunningIn(latest, runId)
      ? startSaga(
          latest,
          {
            sagaId,
            trigger: "corrective",
            revisionId: correction.revisionId,
            fromStep,
            toStep: Math.max(newest, fromStep - 1),
          },
          now,
        )
      : undefined,
  );
  if (started.record.saga?.sagaId !== sagaId) return started;
  return runSaga(ports, started, {
    mayChange: (record) => isRunningIn(record, runId),
    finish: (record, at) =>
      settle(
        {
          ...record,
          updatedAt: at.toISOString(),
          pendingCorrections: (record.pendingCorrections ?? []).filter(
            (item) => item.revisionId !== correction.revisionId,
          ),
        },
        [],
      ),
  });
}
