import { canonicalJson, sha256Hex } from "../../goal/canonical-json";
import type { ToolResultObservation } from "../../goal/evidence/cycle-observations";
import type { Evidence } from "../../goal/evidence/evidence";
import { appendProgressNote } from "../../goal/evidence/progress-notes";
import { type GoalChange, goalEvent, type JsonValue, settle } from "../../goal/goal-change";
import type { GoalRecord } from "../../goal/goal-record";
import { MAX_SAGA_STEPS, type Saga, type UncompensatedCall, withNamedCall } from "../../goal/saga";
import { toolUsesOf } from "../../models/model-answer";
import type { Clock } from "../../ports/clock";
import type { GoalStore, VersionedGoal } from "../../ports/goal-store";
import type { ToolResultBlock, ToolUseBlock } from "../../ports/model-client";
import type { StepLog, StepRecord } from "../../ports/step-log";
import { updateGoal } from "../update-goal";
import type { CompensationWorkspace, ToolCompensators } from "./compensate";
import { compensatorOf } from "./compensators";

export interface SagaPorts {
  readonly goals: GoalStore;
  readonly workspace: CompensationWorkspace;
  readonly stepLog: Pick<StepLog, "listRecentSteps">;
  /** The user tools' compensate functions. @default - none: only workspace_write is undone */
  readonly compensators?: ToolCompensators;
  readonly now: Clock;
}

/** One call of the saga, in the saga's order (newest step first, a step's last call first). */
interface SagaCall {
  readonly step: StepRecord;
  readonly call: ToolUseBlock;
  readonly result: ToolResultBlock;
  readonly observation: ToolResultObservation | undefined;
}

/** What undoing one call came to, as its `compensation.step` event says. */
interface CallOutcome {
  readonly action:
    | "restored"
    | "deleted"
    | "compensated"
    | "nothing_to_undo"
    | "not_compensable"
    | "skipped"
    | "failed";
  readonly note?: string;
  readonly result?: JsonValue;
  /** A workspace file the undo changed (artifact evidence about it is checked again). */
  readonly path?: string;
}

/**
 * The saga that starts at `fromStep` (until the newest logged step): what `runSaga` then runs, with
 * the `compensation.started` event. The saga's id makes the start idempotent: a retried step finds
 * its saga already on the record.
 */
export function startSaga(
  record: GoalRecord,
  saga: Pick<Saga, "sagaId" | "trigger" | "fromStep" | "toStep" | "revisionId">,
  now: Date,
): GoalChange | undefined {
  if (record.saga?.sagaId === saga.sagaId) return undefined;
  const started: Saga = {
    ...saga,
    status: "running",
    processed: 0,
    undone: 0,
    notCompensable: [],
    failed: [],
    startedAt: now.toISOString(),
  };
  const next: GoalRecord = { ...record, updatedAt: started.startedAt, saga: started };
  return settle(next, [
    goalEvent(next, "compensation.started", now, {
      sagaId: saga.sagaId,
      trigger: saga.trigger,
      fromStep: saga.fromStep,
      toStep: saga.toStep,
      revisionId: saga.revisionId ?? null,
    }),
  ]);
}

/**
 * Runs the goal's running saga to its end (DESIGN §5): the successful calls of steps `fromStep` to
 * `toStep` (steps an earlier saga undid left out), newest first, each undone by its tool's
 * compensator once. After each call the saga's position is committed with a `compensation.step`
 * event, so a step that crashed mid-saga resumes at the call it was on; that call's compensator
 * finds its own work done (a file already restored or deleted by this saga, a Lambda compensate
 * function called again with the same idempotency key) and nothing is undone twice. A call no
 * compensator can undo is named (`compensation.not_compensable` and the snapshot's
 * `compensation.notCompensable`), never skipped silently. At the end, evidence the undo took away
 * is revoked and `compensation.completed` says what was done; `finish` adds the caller's own change
 * to that last commit (a corrective revision resolved).
 *
 * `mayChange` says whether the goal may still be changed by this saga (a corrective saga stops when
 * its run no longer owns the goal; an abandoned goal's saga runs on a final goal).
 */
export async function runSaga(
  ports: SagaPorts,
  loaded: VersionedGoal,
  options: {
    readonly mayChange: (record: GoalRecord) => boolean;
    readonly finish?: (record: GoalRecord, now: Date) => GoalChange;
  },
): Promise<VersionedGoal> {
  let current = loaded;
  const saga = current.record.saga;
  if (saga?.status !== "running") return current;
  const calls = await sagaCalls(ports, current.record, saga);
  const touched = new Set<string>();
  const undoneResults = new Set<string>();
  for (let index = saga.processed; index < calls.length; index += 1) {
    const call = calls[index];
    if (call === undefined || !options.mayChange(current.record)) return current;
    const outcome = await undoCall(ports, current.record, saga, call, index);
    if (outcome.path !== undefined) touched.add(outcome.path);
    if (outcome.action === "compensated" && call.observation) undoneResults.add(call.observation.sha256);
    const now = ports.now();
    current = await updateGoal(ports.goals, current, (record) =>
      record.saga?.sagaId === saga.sagaId && record.saga.processed === index && options.mayChange(record)
        ? recordCall(record, call, outcome, now)
        : undefined,
    );
    if (current.record.saga?.processed !== index + 1) return current;
  }
  // Paths a resumed saga undid before it crashed are checked again too: revoking is idempotent.
  for (const call of calls) {
    if (call.call.name === "workspace_write") {
      const path = pathOf(call.call);
      if (path !== undefined) touched.add(path);
    }
  }
  const files = new Map(
    await Promise.all(
      [...touched].map(
        async (path) =>
          [path, (await ports.workspace.readFile(current.record.goalId, path))?.sha256] as const,
      ),
    ),
  );
  const now = ports.now();
  return updateGoal(ports.goals, current, (record) => {
    if (record.saga?.sagaId !== saga.sagaId || record.saga.status !== "running" || !options.mayChange(record))
      return undefined;
    const completed = completeSaga(record, files, undoneResults, now);
    if (!options.finish) return completed;
    const finished = options.finish(completed.record, now);
    return { record: finished.record, events: [...completed.events, ...finished.events] };
  });
}

/** The saga's calls in order: successful calls of its steps, newest step first, last call first. */
async function sagaCalls(ports: SagaPorts, record: GoalRecord, saga: Saga): Promise<SagaCall[]> {
  if (saga.toStep < saga.fromStep) return [];
  const count = Math.min(MAX_SAGA_STEPS, saga.toStep - saga.fromStep + 1);
  const recent = await ports.stepLog.listRecentSteps(record.goalId, count + 1);
  const undoneBefore = (step: number) =>
    (record.compensatedSteps ?? []).some((range) => step >= range.fromStep && step <= range.toStep);
  return recent
    .filter((step) => step.step >= saga.fromStep && step.step <= saga.toStep && !undoneBefore(step.step))
    .reverse()
    .flatMap((step) => {
      const calls = toolUsesOf(step.turn);
      return calls
        .flatMap((call, index): SagaCall[] => {
          const result = step.toolResults.find((candidate) => candidate.toolUseId === call.toolUseId);
          if (result?.status !== "success") return [];
          return [{ step, call, result, observation: step.observations.toolResults[index] }];
        })
        .reverse();
    });
}

/** Undoes one call with its tool's compensator, or says why it cannot be undone. */
async function undoCall(
  ports: SagaPorts,
  record: GoalRecord,
  saga: Saga,
  call: SagaCall,
  index: number,
): Promise<CallOutcome> {
  const tool = call.call.name;
  const kind = compensatorOf(tool, call.observation?.reads === true, ports.compensators?.has(tool) === true);
  switch (kind) {
    case "nothing_to_undo":
      return { action: "nothing_to_undo", note: "the call only read" };
    case "none":
      return { action: "not_compensable", note: `${tool} declares no compensator` };
    case "workspace":
      return undoWrite(ports, record, saga, call, index);
    case "function": {
      const answer = await ports.compensators?.compensate({
        tool,
        input: call.call.input,
        result: call.result.content as JsonValue,
        goalId: record.goalId,
        runId: record.runId,
        tenantId: record.tenantId,
        toolUseId: call.call.toolUseId,
        idempotencyKey: sha256Hex(
          canonicalJson(["saga", record.goalId, saga.sagaId, call.step.step, call.call.toolUseId]),
        ),
      });
      if (!answer) return { action: "not_compensable", note: `${tool} has no compensate function here` };
      return answer.ok
        ? { action: "compensated", result: answer.value }
        : { action: "failed", note: answer.error };
    }
  }
}

/** The writer a saga's undo of call `index` writes as: a retry of the saga knows its own work by it. */
export function sagaWriterId(sagaId: string, index: number): string {
  return `compensate:${sagaId}:${index}`;
}

function pathOf(call: ToolUseBlock): string | undefined {
  const input = call.input;
  const path = typeof input === "object" && input !== null && !Array.isArray(input) ? input.path : undefined;
  return typeof path === "string" ? path : undefined;
}

/** What a workspace_write answered: the file's hash and version after the write, and whether it changed it. */
function writeResultOf(
  result: ToolResultBlock,
): { sha256: string; version: number; changed: boolean } | undefined {
  for (const block of result.content) {
    const value = "json" in block ? block.json : undefined;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const { sha256, version, changed } = value;
      if (typeof sha256 === "string" && typeof version === "number" && typeof changed === "boolean")
        return { sha256, version, changed };
    }
  }
  return undefined;
}

/**
 * Undoes a `workspace_write`: the file goes back to what the write replaced (the version before it),
 * or is deleted when the write created it. The file must still be what the write left (the saga
 * undid every later write first): a file changed by something else is left alone and reported.
 */
async function undoWrite(
  ports: SagaPorts,
  record: GoalRecord,
  saga: Saga,
  call: SagaCall,
  index: number,
): Promise<CallOutcome> {
  const path = pathOf(call.call);
  const written = writeResultOf(call.result);
  if (path === undefined || written === undefined) {
    return { action: "skipped", note: "the write's path or result is not recorded" };
  }
  if (!written.changed) return { action: "nothing_to_undo", note: "the write changed nothing", path };
  const writerId = sagaWriterId(saga.sagaId, index);
  const { goalId } = record;
  const file = await ports.workspace.readFile(goalId, path);
  // Done before a crash: this very undo wrote the file (restored) or it is gone already (deleted).
  if (file?.writtenBy.toolUseId === writerId) return { action: "restored", path };
  const before =
    written.version === 1
      ? ({ deleted: true } as const)
      : await ports.workspace.readVersion(goalId, path, written.version - 1);
  if (before?.deleted === true && file === undefined) return { action: "deleted", path };
  if (file?.sha256 !== written.sha256) {
    return {
      action: "failed",
      note: "the file changed after that write, by something this saga does not undo; left as it is",
      path,
    };
  }
  const writtenBy = { runId: record.runId, iteration: record.runIteration, toolUseId: writerId };
  if (before === undefined) {
    return {
      action: "failed",
      note: `version ${written.version - 1} of the file is no longer kept; left as it is`,
      path,
    };
  }
  if (before.deleted) {
    await ports.workspace.deleteFile({ goalId, path, writtenBy });
    return { action: "deleted", note: "the write created the file", path };
  }
  await ports.workspace.writeFile({ goalId, path, content: before.content, writtenBy });
  return { action: "restored", note: `back to version ${written.version - 1}`, path };
}

/** The saga moved past one call: its position, its tallies and its event. */
function recordCall(record: GoalRecord, call: SagaCall, outcome: CallOutcome, now: Date): GoalChange {
  const saga = record.saga;
  if (!saga) return settle(record, []);
  const named: UncompensatedCall = {
    step: call.step.step,
    tool: call.call.name,
    toolUseId: call.call.toolUseId,
    reason: (outcome.note ?? outcome.action).slice(0, 300),
  };
  const next: GoalRecord = {
    ...record,
    updatedAt: now.toISOString(),
    saga: {
      ...saga,
      processed: saga.processed + 1,
      undone: saga.undone + (["restored", "deleted", "compensated"].includes(outcome.action) ? 1 : 0),
      notCompensable:
        outcome.action === "not_compensable"
          ? withNamedCall(saga.notCompensable, named)
          : saga.notCompensable,
      failed:
        outcome.action === "failed" || outcome.action === "skipped"
          ? withNamedCall(saga.failed, named)
          : saga.failed,
    },
  };
  const fields = {
    sagaId: saga.sagaId,
    step: call.step.step,
    toolUseId: call.call.toolUseId,
    tool: call.call.name,
    action: outcome.action,
    note: outcome.note ?? null,
    ...(outcome.path === undefined ? {} : { path: outcome.path }),
    ...(outcome.result === undefined ? {} : { result: outcome.result }),
  };
  const events = [goalEvent(next, "compensation.step", now, fields)];
  if (outcome.action === "not_compensable") {
    events.push(
      goalEvent(next, "compensation.not_compensable", now, {
        sagaId: saga.sagaId,
        step: call.step.step,
        toolUseId: call.call.toolUseId,
        tool: call.call.name,
        reason: named.reason,
      }),
    );
  }
  return settle(next, events);
}

/**
 * The saga's end: evidence that no longer holds is revoked (artifact evidence of a file the saga
 * restored or deleted, tool-result evidence of a call it compensated), the undone range is
 * remembered, a progress note tells the model what was undone, and `compensation.completed` sums up.
 */
function completeSaga(
  record: GoalRecord,
  files: ReadonlyMap<string, string | undefined>,
  undoneResults: ReadonlySet<string>,
  now: Date,
): GoalChange {
  const saga = record.saga;
  if (!saga) return settle(record, []);
  const holds = (evidence: Evidence) => {
    if (evidence.kind === "artifact" && files.has(evidence.path))
      return files.get(evidence.path) === evidence.sha256;
    if (evidence.kind === "tool_result") return !undoneResults.has(evidence.resultSha256);
    return true;
  };
  const revoked = record.evidence.filter((evidence) => !holds(evidence));
  const revokedIds = new Set(revoked.map((evidence) => evidence.checkId));
  const notCompensable = saga.notCompensable.map((call) => `${call.tool} at step ${call.step}`);
  const note = `compensation: steps ${saga.fromStep}-${saga.toStep} undone (${saga.undone} call(s))${
    notCompensable.length > 0 ? `; not compensable: ${notCompensable.join(", ")}` : ""
  }`;
  const completedAt = now.toISOString();
  const next: GoalRecord = {
    ...record,
    updatedAt: completedAt,
    evidence: record.evidence.filter(holds),
    lastCycle: record.lastCycle
      ? {
          ...record.lastCycle,
          satisfiedChecks: record.lastCycle.satisfiedChecks.filter((checkId) => !revokedIds.has(checkId)),
        }
      : record.lastCycle,
    progressNotes: appendProgressNote(record.progressNotes, note),
    compensatedSteps: [
      ...(record.compensatedSteps ?? []),
      { fromStep: saga.fromStep, toStep: saga.toStep },
    ].slice(-50),
    saga: { ...saga, status: "completed", completedAt },
  };
  return settle(next, [
    ...revoked.map((evidence) =>
      goalEvent(next, "evidence.revoked", now, {
        checkId: evidence.checkId,
        reason: `compensation ${saga.sagaId} undid what proved it`,
      }),
    ),
    goalEvent(next, "compensation.completed", now, {
      sagaId: saga.sagaId,
      trigger: saga.trigger,
      revisionId: saga.revisionId ?? null,
      fromStep: saga.fromStep,
      toStep: saga.toStep,
      undone: saga.undone,
      notCompensable: saga.notCompensable.map((call) => ({ ...call })),
      failed: saga.failed.map((call) => ({ ...call })),
    }),
  ]);
}
