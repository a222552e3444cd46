import { canonicalJson, sha256Hex } from "../../goal/canonical-json";
import type { JsonValue } from "../../goal/goal-change";
import type { GoalRecord, PendingCorrection } from "../../goal/goal-record";
import { toolUsesOf } from "../../models/model-answer";
import type { StepLog, StepRecord } from "../../ports/step-log";
import type { Workspace } from "../../ports/workspace";

/** How far back a corrective revision looks for the last reversible action. */
export const COMPENSATION_LOOKBACK_STEPS = 20;

/** The tool whose calls are reversible: the workspace keeps the content each write replaced. */
const REVERSIBLE_TOOL = "workspace_write";

/** One earlier call a user tool's `compensate` function is asked to undo. */
export interface CompensationRequest {
  readonly tool: string;
  readonly input: JsonValue;
  /** What the call answered (its toolResult content), so the undo knows what was done. */
  readonly result: JsonValue;
  readonly goalId: string;
  readonly runId: string;
  readonly tenantId: string;
  /** The call being undone. */
  readonly toolUseId: string;
  /** The same for every retry of this compensation: the function may do its work once. */
  readonly idempotencyKey: string;
}

/** User tools that come with a `compensate` function (DESIGN §6), and how to run one. */
export interface ToolCompensators {
  has(tool: string): boolean;
  /** Runs the tool's compensate function; a failure is answered, not thrown. */
  compensate(
    request: CompensationRequest,
  ): Promise<
    { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly error: string }
  >;
}

/** What undoing writes needs of the workspace: read, write back, delete, and earlier versions. */
export type CompensationWorkspace = Pick<Workspace, "readFile" | "writeFile" | "deleteFile" | "readVersion">;

export interface CompensationPorts {
  readonly workspace: CompensationWorkspace;
  readonly stepLog: Pick<StepLog, "listRecentSteps">;
  /** @default - none: only workspace_write is reversible */
  readonly compensators?: ToolCompensators;
}

/** What a compensation did, as the `compensation.completed` event reports it. */
export type CompensationOutcome = Record<string, JsonValue>;

/** The last reversible call: a workspace_write (path known) or a user tool with a compensate function. */
type ReversibleAction =
  | { readonly kind: "write"; readonly step: number; readonly toolUseId: string; readonly path: string }
  | {
      readonly kind: "tool";
      readonly step: number;
      readonly toolUseId: string;
      readonly tool: string;
      readonly input: JsonValue;
      readonly result: JsonValue;
    };

/** The latest successful reversible call among the steps, newest step and last call first. */
function lastReversibleAction(
  steps: readonly StepRecord[],
  compensators: ToolCompensators | undefined,
): ReversibleAction | undefined {
  for (const step of [...steps].reverse()) {
    const results = new Map(
      step.toolResults
        .filter((result) => result.status === "success")
        .map((result) => [result.toolUseId, result.content as JsonValue]),
    );
    const actions = toolUsesOf(step.turn).flatMap(({ name, input, toolUseId }): ReversibleAction[] => {
      const result = results.get(toolUseId);
      if (result === undefined) return [];
      if (name === REVERSIBLE_TOOL) {
        const path =
          typeof input === "object" && input !== null && !Array.isArray(input) ? input.path : undefined;
        return typeof path === "string" ? [{ kind: "write", step: step.step, toolUseId, path }] : [];
      }
      return compensators?.has(name)
        ? [{ kind: "tool", step: step.step, toolUseId, tool: name, input, result }]
        : [];
    });
    const last = actions.at(-1);
    if (last) return last;
  }
  return undefined;
}

/** The writer a compensation writes as: one per correction, so a retry sees its own restore. */
export function compensationWriterId(revisionId: string): string {
  return `compensate-${revisionId}`;
}

/**
 * Runs the compensation a `corrective` revision without a target asked for: the last reversible
 * action is undone (a workspace_write by writing back the content it replaced, or deleting the file
 * it created). Idempotent: a retry finds the file written by this compensation, or gone, and does
 * nothing. A write whose file changed since is left alone and the outcome says why. A revision with
 * a target runs a saga instead (saga.ts).
 */
export async function compensateLastAction(
  ports: CompensationPorts,
  record: GoalRecord,
  correction: PendingCorrection,
): Promise<CompensationOutcome> {
  const steps = await ports.stepLog.listRecentSteps(record.goalId, COMPENSATION_LOOKBACK_STEPS);
  const action = lastReversibleAction(steps, ports.compensators);
  if (!action) return { action: "none", note: "no reversible action to compensate" };
  if (action.kind === "tool" && ports.compensators) {
    return compensateToolCall(ports.compensators, record, correction, action);
  }
  if (action.kind !== "write") return { action: "none", note: "no reversible action to compensate" };
  const write = action;
  const target = { tool: REVERSIBLE_TOOL, path: write.path, step: write.step };
  const writerId = compensationWriterId(correction.revisionId);
  const file = await ports.workspace.readFile(record.goalId, write.path);
  if (file?.writtenBy.toolUseId === writerId) return { ...target, action: "restored", version: file.version };
  if (file?.writtenBy.toolUseId !== write.toolUseId) {
    return { ...target, action: "skipped", note: "the file changed after that write; nothing restored" };
  }
  const writtenBy = { runId: record.runId, iteration: record.runIteration, toolUseId: writerId };
  if (file.previous === null) {
    // The write created the file: undoing it is deleting it.
    await ports.workspace.deleteFile({ goalId: record.goalId, path: write.path, writtenBy });
    return { ...target, action: "deleted", note: "that write created the file" };
  }
  const restored = await ports.workspace.writeFile({
    goalId: record.goalId,
    path: write.path,
    content: file.previous.content,
    writtenBy,
  });
  return { ...target, action: "restored", version: restored.file.version };
}

/**
 * Asks a user tool's compensate function to undo its last call, with the call's input and result.
 * The idempotency key is derived from the correction and the call, so a retried compensation
 * carries the same one; a failed undo is reported on the event, and the goal goes on.
 */
async function compensateToolCall(
  compensators: ToolCompensators,
  record: GoalRecord,
  correction: PendingCorrection,
  action: Extract<ReversibleAction, { kind: "tool" }>,
): Promise<CompensationOutcome> {
  const target = { tool: action.tool, step: action.step, toolUseId: action.toolUseId };
  const answer = await compensators.compensate({
    tool: action.tool,
    input: action.input,
    result: action.result,
    goalId: record.goalId,
    runId: record.runId,
    tenantId: record.tenantId,
    toolUseId: action.toolUseId,
    idempotencyKey: sha256Hex(
      canonicalJson(["compensate", record.goalId, correction.revisionId, action.toolUseId]),
    ),
  });
  return answer.ok
    ? { ...target, action: "compensated", result: answer.value }
    : { ...target, action: "failed", note: answer.error };
}
