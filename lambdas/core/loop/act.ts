import { canonicalJson, sha256Hex } from "../goal/canonical-json";
import { GoalLoopsError } from "../goal/errors";
import { type GoalChange, goalEvent, settle } from "../goal/goal-change";
import type { NewGoalEvent } from "../goal/goal-event";
import type { ActionGate, GoalRecord } from "../goal/goal-record";
import { markLoop, reached } from "../goal/loop-marker";
import type { PlanStepState } from "../goal/plan";
import { lineageRunId, sameRun } from "../goal/run-lineage";
import { checkpointRunId } from "../goal/run-takeover";
import { clip } from "../goal/text";
import { toolUsesOf, turnText } from "../models/model-answer";
import { recordModelUsage } from "../models/model-prices";
import type { ModelRole } from "../models/model-roles";
import type { Clock } from "../ports/clock";
import type { GoalStore, ModelCheckpoint, VersionedGoal } from "../ports/goal-store";
import type { ModelTurn, ToolUseBlock } from "../ports/model-client";
import type { StepLog, StepRecord } from "../ports/step-log";
import {
  type StagingContext,
  type ToolOutcome,
  type ToolRunner,
  toolCallIdempotencyKey,
} from "../ports/tool-runner";
import { ACTING_ROLE } from "./acting-role";
import { gatedNext, gateOf, pendingGate, setGate } from "./gates/action-gate";
import { grantedTools, type LoopSettings } from "./loop-deps";
import { batchTurnOf, executedStep, isOffPlan } from "./off-plan-call";
import { isRunningIn, nextForStatus, type RunPosition, type StepResult, stopped } from "./step-result";
import { awaitsSubgoals, entryOf, type SpawnCall, spawnCallsOf } from "./subgoals/spawn-calls";
import { subgoalOutcome } from "./subgoals/subgoal-outcome";
import { chain, readGoal, updateGoal } from "./update-goal";

export interface ActPorts {
  readonly goals: GoalStore;
  readonly stepLog: StepLog;
  readonly tools: ToolRunner;
  readonly now: Clock;
}

/** Act found no acting turn (reason, execute or attempt) for its iteration: it ran before that step. */
export class ReasonCheckpointMissingError extends GoalLoopsError {
  override readonly name = "ReasonCheckpointMissingError";
}

/** The step log holds an uncounted step of another run or iteration where this one's would go. */
export class StepLogConflictError extends GoalLoopsError {
  override readonly name = "StepLogConflictError";
}

const EXCERPT = 300;
const cut = (text: string) => clip(text, EXCERPT);

/**
 * Act: runs every tool call of the iteration's reason turn through the ToolRunner (a bad call comes
 * back as an error result; a turn cut by max_tokens makes every call an error), writes one StepRecord
 * and records `tool.called` / `tool.error` / `model.turn` events; the next iteration verifies it.
 *
 * A retry whose step is already in the log reuses it instead of running the tools again, and a goal
 * whose loop marker says `acted` only answers.
 */
export async function act(
  ports: ActPorts,
  settings: Pick<LoopSettings, "defaultTools">,
  input: RunPosition,
): Promise<StepResult> {
  const { goalId, runId } = input;
  const loaded = await readGoal(ports.goals, goalId);
  const record = loaded.record;
  if (!isRunningIn(record, runId)) {
    return { ...input, next: record.runId === runId ? nextForStatus(record.status) : "stop" };
  }
  return actOnLoaded(ports, settings, loaded, input);
}

/** Act on a goal read as running in the position's run: answer an acted iteration, else find its turn. */
async function actOnLoaded(
  ports: ActPorts,
  settings: Pick<LoopSettings, "defaultTools">,
  loaded: VersionedGoal,
  position: RunPosition,
): Promise<StepResult> {
  const { record } = loaded;
  const { goalId, runId, iteration } = position;
  if (reached(record, runId, iteration, "acted")) return actedAnswer(position);
  const checkpoint = await reasonTurnOf(ports.goals, record, iteration);
  if (!checkpoint) {
    throw new ReasonCheckpointMissingError(
      `No ${ACTING_ROLE[record.pattern]} turn for goal '${goalId}' run '${runId}' iteration ${iteration}`,
    );
  }
  return actOnTurn(ports, settings, { loaded, checkpoint, position });
}

/** What Act answers once the iteration acted: verify it, in the next iteration. */
export function actedAnswer({ goalId, runId, iteration }: RunPosition): StepResult {
  return { goalId, runId, iteration: iteration + 1, next: "verify" };
}

/**
 * The second half of Act, for a step that holds the goal and the iteration's acting turn already
 * (Act itself, or VerifyAndReason, Execute and Attempt right after they committed the turn): runs or
 * reuses the step and commits the `acted` marker with the step's events.
 */
async function actOnTurn(
  ports: ActPorts,
  settings: Pick<LoopSettings, "defaultTools">,
  turn: Extract<ActingTurn, { checkpoint: ModelCheckpoint }>,
): Promise<StepResult> {
  const { loaded, checkpoint, position, stepLogRead } = turn;
  const { runId, iteration } = position;
  // Sub-goals the turn started (or is about to) must end first: AwaitSubgoals waits for them.
  const spawns = spawnCallsOf(
    loaded.record,
    checkpoint.turn,
    { runId: checkpoint.key.runId, iteration },
    settings.defaultTools,
  );
  if (awaitsSubgoals(loaded.record, spawns)) return { ...position, next: "subgoal" };
  const { step, errorNames } = await loggedStep(ports, settings, {
    record: loaded.record,
    checkpoint,
    iteration,
    ...(stepLogRead ? { stepLogRead } : {}),
  });
  const now = ports.now();
  await updateGoal(ports.goals, loaded, (current) => {
    if (
      current.runId !== runId ||
      current.status !== "running" ||
      reached(current, runId, iteration, "acted")
    ) {
      return undefined;
    }
    return chain(
      current,
      (next) =>
        settle(next, [
          ...discardedTurn(next, step, position, now),
          ...actEvents(next, step, errorNames, now),
        ]),
      (next) => markLoop(next, { runId, iteration, phase: "acted" }, "verify", now),
    );
  });
  return actedAnswer(position);
}

/**
 * What a step that makes an acting turn (ReAct's reason, Plan-and-Execute's execute, Reflexion's
 * attempt) does once that turn is checkpointed and counted: `approval` while one of its calls waits
 * for a human (AwaitApproval, then the Act state, runs it), else Act's work in the same invocation —
 * one Lambda invocation and one state transition fewer per iteration. With the goal as the step just
 * committed it and the turn in hand (`checkpoint`), neither is read again (nor the step log, with
 * `stepLogRead`); without (a retry that found the turn counted already), the turn is read and a step
 * an attempt logged is reused.
 */
export function actUnlessGated(
  ports: ActPorts,
  settings: Pick<LoopSettings, "defaultTools">,
  turn: ActingTurn,
): Promise<StepResult> {
  const { loaded, position } = turn;
  if (gatedNext(loaded.record, position) === "approval") {
    return Promise.resolve({ ...position, next: "approval" });
  }
  return turn.checkpoint ? actOnTurn(ports, settings, turn) : actOnLoaded(ports, settings, loaded, position);
}

/**
 * How a step counts its acting turn (see `countedTurn`): the call's `role`, the turn's calls that wait
 * for a human (`gated`), and the pattern's own changes around the count. `first` is committed with
 * the turn whether or not it is counted (VerifyAndReason's verify cycle).
 */
export interface TurnCounting {
  readonly role: ModelRole;
  readonly gated: readonly ToolUseBlock[];
  readonly now: Date;
  readonly first?: Change;
  readonly before?: Change;
  readonly after?: Change;
  /** false when the turn's usage is on the goal already (a Plan-and-Execute batch branch counted it). */
  readonly countUsage?: boolean;
}

/**
 * What a step that makes an acting turn does once the turn is checkpointed: commits it counted (the
 * call's usage, the gate, the `reasoned` marker, see `countedTurn`), then acts on it unless one of its
 * calls waits for a human (`actUnlessGated`). The commit leaves its events in the background: the
 * tools run meanwhile (Act's commit waits for them), and they are stored before this answers,
 * whatever acting does. `stepLogRead` is the step log as the step read it before the call; Act uses
 * it instead of reading the log only when this commit marked the iteration reasoned (see StepLogRead).
 */
export async function commitTurnAndAct(
  ports: ActPorts,
  settings: Pick<LoopSettings, "defaultTools">,
  turn: {
    loaded: VersionedGoal;
    checkpoint: ModelCheckpoint;
    position: RunPosition;
    counting: TurnCounting;
    stepLogRead?: StepLogRead;
  },
): Promise<StepResult> {
  const { checkpoint, position, counting } = turn;
  const countTurn = countedTurn(position, checkpoint.turn, counting);
  // What the tools start with and may do before this commit decides they run (a workspace write
  // keeps the version it will replace), in the same round trip as the commit. Only the turn's
  // calls this very invocation runs next (no gate); the file items themselves move after the commit.
  const staged =
    counting.gated.length === 0
      ? ports.tools.stage?.(
          toolUsesOf(checkpoint.turn),
          callContextOf(turn.loaded.record, settings, position.iteration, checkpoint.turn),
        )
      : undefined;
  // Set by the application of the change that was committed (updateGoal applies it again after a
  // conflict): a counting change always sets the marker, so it is defined exactly when it marks it.
  let marksReasoned = false;
  const counted = await updateGoal(
    ports.goals,
    turn.loaded,
    (current) => {
      const change = chain(
        current,
        (next) => counting.first?.(next),
        (next) => {
          const counts = countTurn(next);
          marksReasoned = counts !== undefined;
          return counts;
        },
      );
      return change.record === current ? undefined : change;
    },
    { eventsInBackground: true },
  );
  try {
    await staged;
    if (!isRunningIn(counted.record, position.runId)) return stopped(counted.record, position);
    const stepLogRead = marksReasoned && position.iteration > 0 ? turn.stepLogRead : undefined;
    return await actUnlessGated(ports, settings, {
      loaded: counted,
      checkpoint,
      position,
      ...(stepLogRead ? { stepLogRead } : {}),
    });
  } finally {
    await ports.goals.settled();
  }
}

type Change = (record: GoalRecord) => GoalChange | undefined;

/**
 * The change that counts an acting turn once per checkpoint: `before` (what the step counts first),
 * the call's usage under `role`, `after` (the pattern's own record of the turn), the gate when one
 * of `gated` waits for a human, and the `reasoned` marker. Nothing when another run took the goal or
 * the iteration is counted already; a goal that stopped meanwhile is still counted: the call was
 * paid for.
 */
function countedTurn(position: RunPosition, turn: ModelTurn, counting: TurnCounting): Change {
  const { runId, iteration } = position;
  const { role, gated, now } = counting;
  return (current) =>
    current.runId !== runId || reached(current, runId, iteration, "reasoned")
      ? undefined
      : chain(
          current,
          (next) => counting.before?.(next),
          (next) => (counting.countUsage === false ? undefined : recordModelUsage(next, role, turn, now)),
          (next) => counting.after?.(next),
          (next) =>
            gated.length > 0 ? setGate(next, pendingGate(position, gated, next.frozenTools), now) : undefined,
          (next) => markLoop(next, { runId, iteration, phase: "reasoned" }, "act", now),
        );
}

/**
 * What a step hands to `actUnlessGated`: the goal as it committed it, the iteration to act in and,
 * when the step holds it, the iteration's acting turn (read from its checkpoint otherwise).
 */
export type ActingTurn = { readonly loaded: VersionedGoal; readonly position: RunPosition } & (
  | { readonly checkpoint?: undefined; readonly stepLogRead?: undefined }
  | { readonly checkpoint: ModelCheckpoint; readonly stepLogRead?: StepLogRead }
);

/**
 * The step log as the acting step read it earlier in the same invocation: `newest` is the newest
 * logged step it read (possibly counted already), undefined when it read none. `commitTurnAndAct`
 * passes it on only when its own commit marked the iteration `reasoned`, outside a run's first
 * iteration: no step of the iteration can be logged before that marker, so Act's own read of the
 * log is skipped.
 * A racing writer's step still wins (`putStep` reports it). In a run's first iteration the previous
 * run's last invocation may still be running (pausing or cancelling a run does not stop a Lambda in
 * flight) and log a step under the same number, so Act reads the log right before the tools run.
 */
export interface StepLogRead {
  readonly newest: StepRecord | undefined;
}

interface LoggedStep {
  readonly step: StepRecord;
  /** The ToolRunner's error names by toolUseId (a reused step has them in its observations). */
  readonly errorNames: ReadonlyMap<string, string>;
}

/**
 * The acting turn of the iteration (`reason`, `execute` or `attempt`, by the goal's pattern), under
 * the run's lineage (`checkpointRunId`: a run that took over finds its predecessors' turn).
 * A gate moved into a new run before lineages were recorded binds to the previous run's turn.
 */
export async function reasonTurnOf(
  goals: GoalStore,
  record: GoalRecord,
  iteration: number,
): Promise<ModelCheckpoint | undefined> {
  const { goalId, runId } = record;
  const role = ACTING_ROLE[record.pattern];
  // A Plan-and-Execute batch made the step's turn under a key of its own.
  const batchTurn = batchTurnOf(record, iteration);
  if (batchTurn) return goals.getCheckpoint({ goalId, role, ...batchTurn });
  const turnRunId = checkpointRunId(record, { runId, iteration });
  const turn = await goals.getCheckpoint({ goalId, runId: turnRunId, iteration, role });
  const legacyGate =
    turnRunId === runId && record.previousRunId !== undefined && gateOf(record, { runId, iteration });
  if (turn || !legacyGate || record.previousRunId === undefined) return turn;
  return goals.getCheckpoint({ goalId, runId: record.previousRunId, iteration, role });
}

/**
 * The step logged first under this iteration's number (the goal's count + 1), if `latest` (the
 * newest logged step) is it; undefined when the log holds nothing beyond the goal's count.
 *
 * Usually an earlier attempt of this very iteration logged it, and it is reused. It may also be a
 * late step of another run or iteration: pausing, cancelling or re-attaching does not stop a Lambda
 * already running, so the previous run's last Act can log its step after this run read the log. Its
 * tools really ran, so it is the step that counts, and this iteration's own turn is discarded
 * (`turn.discarded`) without running its calls: the next reason call sees what the late step did.
 * Two uncounted steps (one beyond the slot) are still a conflict no retry fixes.
 */
function earlierStep(record: GoalRecord, latest: StepRecord | undefined): StepRecord | undefined {
  const stepNumber = record.steps + 1;
  if (!latest || latest.step < stepNumber) return undefined;
  if (latest.step === stepNumber) return latest;
  throw new StepLogConflictError(
    `Goal '${record.goalId}' step ${latest.step} (run ${latest.runId} iteration ${latest.iteration}) is logged beyond step ${stepNumber}, which is not verified yet`,
  );
}

/**
 * The step `putStep` found logged under this iteration's number (`earlierStep` says which counts).
 * Its own error is a guard for a stored record whose number is not its key's.
 */
function loggedFirst(record: GoalRecord, stored: StepRecord): StepRecord {
  const earlier = earlierStep(record, stored);
  if (earlier) return earlier;
  throw new StepLogConflictError(
    `Goal '${record.goalId}': the step log answered step ${stored.step} (run ${stored.runId} iteration ${stored.iteration}) for step ${record.steps + 1}`,
  );
}

/** The iteration's step: the one an earlier attempt logged, or a new one from running the calls. */
async function loggedStep(
  ports: ActPorts,
  settings: Pick<LoopSettings, "defaultTools">,
  acting: {
    record: GoalRecord;
    checkpoint: ModelCheckpoint;
    iteration: number;
    stepLogRead?: StepLogRead;
  },
): Promise<LoggedStep> {
  const { record, iteration } = acting;
  const { turn, key: turnKey } = acting.checkpoint;
  const stepNumber = record.steps + 1;
  const latest = acting.stepLogRead
    ? acting.stepLogRead.newest
    : (await ports.stepLog.listRecentSteps(record.goalId, 1))[0];
  const logged = earlierStep(record, latest);
  if (logged) return { step: logged, errorNames: new Map() };
  const gate = gateOf(record, { runId: record.runId, iteration });
  const context = callContextOf(record, settings, iteration, turn);
  // The plan step an executor turn was made for (by any run of its lineage in its iteration).
  // The turn as the iteration acting on it knows it: a batch turn's key names its batch's iteration.
  const actingKey = { runId: turnKey.runId, iteration };
  const planStep = turnKey.role === "execute" ? executedStep(record, actingKey) : undefined;
  const spawns = spawnCallsOf(record, turn, actingKey, settings.defaultTools);
  const outcomes: ToolOutcome[] = [];
  // One call after another, in the model's order: a later call may read what an earlier one wrote.
  for (const call of toolUsesOf(turn)) {
    const refused =
      (turnKey.role === "execute" ? refusedOffPlan(call, planStep) : undefined) ??
      (gate?.toolUseIds.includes(call.toolUseId) ? refusedByGate(call, gate) : undefined);
    // Keyed by the run whose turn asked for the call: a gate re-attached into a new run keeps its key.
    const idempotencyKey = toolCallIdempotencyKey({
      goalId: turnKey.goalId,
      ...actingKey,
      toolUseId: call.toolUseId,
    });
    const spawn = spawns.find((candidate) => candidate.call.toolUseId === call.toolUseId);
    outcomes.push(
      refused ??
        (spawn
          ? await spawnedOutcome(ports.goals, record, spawn)
          : await ports.tools.run(call, { ...context, idempotencyKey })),
    );
  }
  const step: StepRecord = {
    goalId: record.goalId,
    step: stepNumber,
    // Under the lineage, as the turn's checkpoint: a run that takes the iteration over owns the step.
    runId: lineageRunId(record, record.runId),
    iteration,
    turn,
    ...(acting.checkpoint.conversation ? { conversation: acting.checkpoint.conversation } : {}),
    toolResults: outcomes.map((outcome) => outcome.result),
    observations: {
      // The step log keeps no file content: verify reads it from the workspace when a check needs it.
      artifacts: outcomes.flatMap((outcome) =>
        outcome.artifacts.map(({ path, sha256 }) => ({ path, sha256 })),
      ),
      toolResults: outcomes.map((outcome) => outcome.observation),
    },
    at: ports.now().toISOString(),
  };
  // A racing attempt that logged the step first wins: its step is the one verify will count. In the
  // goal's record schema: the version it runs on reads its steps.
  const racing = await ports.stepLog.putStep(step, record.schema);
  if (racing) return { step: loggedFirst(record, racing), errorNames: new Map() };
  const errorNames = new Map(
    outcomes.flatMap((outcome) =>
      outcome.errorName ? [[outcome.result.toolUseId, outcome.errorName] as const] : [],
    ),
  );
  return { step, errorNames };
}

/** What the tool runner is told of the iteration's calls (each call adds its idempotency key). */
function callContextOf(
  record: GoalRecord,
  settings: Pick<LoopSettings, "defaultTools">,
  iteration: number,
  turn: ModelTurn,
): StagingContext {
  const gate = gateOf(record, { runId: record.runId, iteration });
  return {
    goalId: record.goalId,
    tenantId: record.tenantId,
    runId: record.runId,
    iteration,
    grantedTools: grantedTools(record, settings.defaultTools),
    frozenTools: record.frozenTools ?? [],
    preAuthorized: record.spec.approval.preAuthorized,
    // Only the calls a human approved in this iteration's gate; the runner refuses other irreversible ones.
    approvedCalls: gate?.outcome === "approved" ? gate.toolUseIds : [],
    truncated: turn.stopReason === "max_tokens",
  };
}

/** A `spawn_subgoal` call's answer: its child's outcome (the child ended before Act ran), or its refusal. */
async function spawnedOutcome(goals: GoalStore, record: GoalRecord, spawn: SpawnCall): Promise<ToolOutcome> {
  const entry = entryOf(record, spawn.callKey);
  const child = entry?.goalId === undefined ? undefined : await goals.getGoal(entry.goalId);
  return subgoalOutcome(spawn.call, entry, child?.record);
}

/**
 * A gated call a human rejected (`RejectedByHuman`) or nobody answered in time (`ApprovalExpired`):
 * answered with a tool error, never run, so the model goes on without the action.
 */
function refusedByGate(call: ToolUseBlock, gate: ActionGate): ToolOutcome | undefined {
  if (gate.outcome !== "rejected" && gate.outcome !== "expired") return undefined;
  const name = gate.outcome === "rejected" ? "RejectedByHuman" : "ApprovalExpired";
  const why =
    gate.outcome === "rejected"
      ? `A human (${gate.decidedBy ?? "unknown"}) rejected this call${gate.comment ? `: ${gate.comment}` : ""}.`
      : "Nobody approved this call before the approval request expired.";
  return refused(call, name, `${why} Tool '${call.name}' was not run; go on without it.`);
}

/**
 * A call of an executor turn to another tool than the plan step it was made for names: refused, the
 * step's result says why. A turn whose plan step cannot be found (no step of its lineage and iteration
 * is in progress) has every call refused: a call that cannot be tied to its step never runs.
 */
function refusedOffPlan(call: ToolUseBlock, step: PlanStepState | undefined): ToolOutcome | undefined {
  if (step === undefined) {
    return refused(
      call,
      "OffPlanToolCall",
      `No plan step is in progress for this turn. Tool '${call.name}' was not run: the plan decides what runs next.`,
    );
  }
  if (!isOffPlan(step, call)) return undefined;
  return refused(
    call,
    "OffPlanToolCall",
    `Plan step ${step.id} is done with tool '${step.tool}'. Tool '${call.name}' was not run: use the step's tool, or call none and say why the step cannot be done as planned.`,
  );
}

/** The outcome of a call that was not run: an error result the model sees, named `name`. */
function refused(call: ToolUseBlock, name: string, message: string): ToolOutcome {
  const value = { error: name, message };
  const text = `${name}: ${message}`;
  return {
    result: { toolUseId: call.toolUseId, status: "error", content: [{ text }] },
    errorName: name,
    observation: {
      tool: call.name,
      status: "error",
      resultText: text,
      resultJson: value,
      sha256: sha256Hex(canonicalJson(value)),
    },
    artifacts: [],
  };
}

/** The error name of a failed call: the runner's, else the one its recorded result names. */
function errorNameOf(
  step: StepRecord,
  index: number,
  toolUseId: string,
  known: ReadonlyMap<string, string>,
): string {
  const named = known.get(toolUseId);
  if (named) return named;
  const json = step.observations.toolResults[index]?.resultJson;
  if (json && typeof json === "object" && !Array.isArray(json) && typeof json.error === "string")
    return json.error;
  return "ToolError";
}

function resultText(step: StepRecord, index: number): string {
  const result = step.toolResults[index];
  return (result?.content ?? [])
    .map((block) => ("text" in block ? block.text : JSON.stringify(block.json)))
    .join("\n");
}

/**
 * `turn.discarded` when the step that counts for this iteration is a late step of another lineage or
 * iteration. One logged by an earlier run of this lineage in this iteration is this turn's own step
 * (the same checkpointed turn, its calls run once): nothing was discarded.
 */
function discardedTurn(
  record: GoalRecord,
  step: StepRecord,
  position: RunPosition,
  now: Date,
): NewGoalEvent[] {
  if (sameRun(record, step, position)) return [];
  return [
    goalEvent(record, "turn.discarded", now, {
      iteration: position.iteration,
      step: step.step,
      loggedBy: { runId: step.runId, iteration: step.iteration },
      reason: `step ${step.step} was logged first by run ${step.runId} iteration ${step.iteration}, whose tools ran; it is the step verified next, and this turn's calls were not run`,
    }),
  ];
}

function actEvents(
  record: GoalRecord,
  step: StepRecord,
  errorNames: ReadonlyMap<string, string>,
  now: Date,
): NewGoalEvent[] {
  const calls = toolUsesOf(step.turn);
  const text = turnText(step.turn);
  const events: NewGoalEvent[] = [
    goalEvent(record, "model.turn", now, {
      step: step.step,
      iteration: step.iteration,
      stopReason: step.turn.stopReason,
      toolCalls: calls.map((call) => call.name),
      text: cut(text),
    }),
  ];
  calls.forEach((call, index) => {
    const result = step.toolResults[index];
    const status = result?.status ?? "error";
    events.push(
      goalEvent(record, "tool.called", now, { toolUseId: call.toolUseId, name: call.name, status }),
    );
    if (status === "error") {
      events.push(
        goalEvent(record, "tool.error", now, {
          toolUseId: call.toolUseId,
          name: call.name,
          errorName: errorNameOf(step, index, call.toolUseId, errorNames),
          message: cut(resultText(step, index)),
        }),
      );
    }
  });
  return events;
}
