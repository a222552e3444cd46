import { type ContextSettings, countCompactionUsage, packGoalContext } from "../context";
import type { GoalRecord } from "../goal-record";
import { checkLimits } from "../limits";
import { recordModelUsage } from "../model-prices";
import { modelIdFor } from "../model-tiers";
import type { GoalStore, VersionedGoal } from "../ports/goal-store";
import type { ModelClient } from "../ports/model-client";
import type { StepLog, StepRecord } from "../ports/step-log";
import type { ToolRunner } from "../ports/tool-runner";
import type { Workspace } from "../ports/workspace";
import { gatedCalls, gateOf, pendingGate, setGate } from "./action-gate";
import { applyQueuedRevisions } from "./apply-revisions";
import { markLoop, reached } from "./loop-marker";
import { checkpointedCall } from "./model-call";
import { type Clock, grantedTools, type ReactSettings } from "./react-deps";
import { PROMPT_RECENT_STEPS, REASON_INSTRUCTIONS, reasonRequest, stateText } from "./reason-prompt";
import { isRunningIn, nextForStatus, type RunPosition, type StepResult } from "./step-result";
import { chain, readGoal, updateGoal } from "./update-goal";
import { decideChange, prepareVerification, verifyPending } from "./verify-step";

/** ReAct's settings plus the context packer's (config/context.json when absent). */
export type ReasonSettings = ReactSettings & { readonly context?: ContextSettings };

export interface VerifyAndReasonPorts {
  readonly goals: GoalStore;
  /** Reads artifacts for verify; writes only to compensate a corrective revision. */
  readonly workspace: Pick<Workspace, "readFile" | "writeFile">;
  readonly stepLog: Pick<StepLog, "listRecentSteps">;
  readonly model: ModelClient;
  /** Offers tools to the model; `riskOf` tells which reasoned calls need a human approval first. */
  readonly tools: Pick<ToolRunner, "specsFor" | "riskOf">;
  readonly now: Clock;
}

/** The answer of a step whose goal no longer runs in its run (shared with the other patterns' steps). */
export function stopped(record: GoalRecord, position: RunPosition): StepResult {
  const next = record.runId === position.runId ? nextForStatus(record.status) : "stop";
  return { ...position, iteration: record.runIteration, next };
}

/**
 * VerifyAndReason: (a) verifies the latest logged step that no cycle has counted yet (judge calls for
 * unsatisfied model_judge checks, then `recordCycle`); (b) completes the goal, or ends it on a limit,
 * or asks for a new run after `continueAsNewAfter` iterations; (c) otherwise makes the `reason` call
 * for the run's current iteration and counts its usage.
 *
 * A retry for the same run and iteration repeats nothing: a verified step has `step <= record.steps`,
 * every model call is checkpointed, and the `reasoned` loop marker says the usage was counted.
 */
export async function verifyAndReason(
  ports: VerifyAndReasonPorts,
  settings: ReasonSettings,
  input: RunPosition,
): Promise<StepResult> {
  const { runId } = input;
  const read = await readGoal(ports.goals, input.goalId);
  const loaded = await applyQueuedRevisions(ports, {
    loaded: read,
    runId,
    models: settings.models,
  });
  if (!isRunningIn(loaded.record, runId)) return stopped(loaded.record, input);
  const recentSteps = await ports.stepLog.listRecentSteps(input.goalId, PROMPT_RECENT_STEPS);
  const verified = await verifyAndDecide(ports, settings, loaded, recentSteps.at(-1), runId);

  const record = verified.record;
  if (!isRunningIn(record, runId)) return stopped(record, input);
  const iteration = record.runIteration;
  const position = { ...input, iteration };
  if (reached(record, runId, iteration, "reasoned"))
    return { ...position, next: gatedNext(record, position) };
  // A reached limit waits for a human decision (extend or terminate) instead of ending the goal.
  if (checkLimits(record, ports.now())) return { ...position, next: "limit_decision" };
  if (iteration >= settings.continueAsNewAfter) return { ...position, next: "continue_as_new" };
  return reason(ports, settings, verified, position);
}

async function verifyAndDecide(
  ports: VerifyAndReasonPorts,
  settings: ReactSettings,
  loaded: VersionedGoal,
  latest: StepRecord | undefined,
  runId: string,
): Promise<VersionedGoal> {
  const pending = await prepareVerification(ports, {
    record: loaded.record,
    latest,
    models: settings.models,
  });
  const now = ports.now();
  return updateGoal(ports.goals, loaded, (current) => {
    if (!isRunningIn(current, runId)) return undefined;
    const change = chain(
      current,
      (next) => verifyPending(next, pending, now),
      (next) => decideChange(next, now),
    );
    return change.events.length > 0 ? change : undefined;
  });
}

async function reason(
  ports: VerifyAndReasonPorts,
  settings: ReasonSettings,
  verified: VersionedGoal,
  position: RunPosition,
): Promise<StepResult> {
  const { record } = verified;
  const { runId, iteration } = position;
  const key = { goalId: record.goalId, runId, iteration, role: "reason" as const, ordinal: 0 };
  const tools = ports.tools.specsFor(grantedTools(record.spec, settings.defaultTools));
  const modelId = modelIdFor(record.spec, "reason", settings.models);
  // Packing again on a retry reads the same steps and summaries: it decides the same and pays nothing.
  const context = await packGoalContext(ports, {
    record,
    modelId,
    summarizeModelId: modelIdFor(record.spec, "summarize", settings.models),
    instructions: REASON_INSTRUCTIONS,
    tools,
    state: stateText(record, iteration),
    ...(settings.context ? { settings: settings.context } : {}),
  });
  const checkpoint = await checkpointedCall(ports, key, (call) =>
    reasonRequest({ record, context, tools, modelId, call }),
  );
  const now = ports.now();
  const { turn } = checkpoint;
  const gated = gatedCalls(record, turn, ports.tools, grantedTools(record.spec, settings.defaultTools));
  const counted = await updateGoal(ports.goals, verified, (current) => {
    // Counted once per checkpoint, even when the goal stopped meanwhile: the call was paid for.
    if (current.runId !== runId || reached(current, runId, iteration, "reasoned")) return undefined;
    return chain(
      current,
      (next) => countCompactionUsage(next, context.uncounted, now),
      (next) => recordModelUsage(next, "reason", turn.modelId, turn.usage, now),
      (next) => (gated.length > 0 ? setGate(next, pendingGate(position, gated), now) : undefined),
      (next) => markLoop(next, { runId, iteration, phase: "reasoned" }, "act", now),
    );
  });
  if (!isRunningIn(counted.record, runId)) return stopped(counted.record, position);
  return { ...position, next: gatedNext(counted.record, position) };
}

/** `approval` while the turn's gate waits for a human, else `act` (Act obeys a decided gate). */
export function gatedNext(record: GoalRecord, position: RunPosition): "approval" | "act" {
  return gateOf(record, position)?.outcome === "pending" ? "approval" : "act";
}
