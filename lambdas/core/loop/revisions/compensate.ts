import type { JsonValue } from "../../goal/goal-change";
import type { GoalRecord, PendingCorrection } from "../../goal/goal-record";
import { toolUsesOf } from "../../models/model-answer";
import type { StepLog, StepRecord } from "../../ports/step-log";
import type { Workspace } from "../../ports/workspace";

/** How far back a corrective revision looks for the last reversible action. */
export const COMPENSATION_LOOKBACK_STEPS = 20;

/** The tool whose calls are reversible: the workspace keeps the content each write replaced. */
const REVERSIBLE_TOOL = "workspace_write";

export interface CompensationPorts {
  readonly workspace: Pick<Workspace, "readFile" | "writeFile">;
  readonly stepLog: Pick<StepLog, "listRecentSteps">;
}

/** What a compensation did, as the `compensation.completed` event reports it. */
export type CompensationOutcome = Record<string, JsonValue>;

interface ReversibleWrite {
  readonly step: number;
  readonly toolUseId: string;
  readonly path: string;
}

/** The latest successful workspace_write among the steps, newest step and last call first. */
function lastReversibleWrite(steps: readonly StepRecord[]): ReversibleWrite | undefined {
  for (const step of [...steps].reverse()) {
    const succeeded = new Set(
      step.toolResults.filter((result) => result.status === "success").map((result) => result.toolUseId),
    );
    const writes = toolUsesOf(step.turn).flatMap(({ name, input, toolUseId }) => {
      if (name !== REVERSIBLE_TOOL) return [];
      const path =
        typeof input === "object" && input !== null && !Array.isArray(input) ? input.path : undefined;
      return typeof path === "string" && succeeded.has(toolUseId)
        ? [{ step: step.step, toolUseId, path }]
        : [];
    });
    const last = writes.at(-1);
    if (last) return last;
  }
  return undefined;
}

/** The writer a compensation writes as: one per correction, so a retry sees its own restore. */
export function compensationWriterId(revisionId: string): string {
  return `compensate-${revisionId}`;
}

/**
 * Runs the compensation a `corrective` revision asked for: the last reversible action (a
 * workspace_write) is undone by writing back the content it replaced. Idempotent: a retry finds the
 * file written by this compensation and does nothing. A write whose file changed since, or that
 * created the file (the workspace has no delete), is left alone and the outcome says why.
 */
export async function compensateLastAction(
  ports: CompensationPorts,
  record: GoalRecord,
  correction: PendingCorrection,
): Promise<CompensationOutcome> {
  const steps = await ports.stepLog.listRecentSteps(record.goalId, COMPENSATION_LOOKBACK_STEPS);
  const write = lastReversibleWrite(steps);
  if (!write) return { action: "none", note: "no reversible action to compensate" };
  const target = { tool: REVERSIBLE_TOOL, path: write.path, step: write.step };
  const writerId = compensationWriterId(correction.revisionId);
  const file = await ports.workspace.readFile(record.goalId, write.path);
  if (file?.writtenBy.toolUseId === writerId) return { ...target, action: "restored", version: file.version };
  if (file?.writtenBy.toolUseId !== write.toolUseId) {
    return { ...target, action: "skipped", note: "the file changed after that write; nothing restored" };
  }
  if (file.previous === null) {
    return {
      ...target,
      action: "skipped",
      note: "that write created the file; the workspace cannot delete it",
    };
  }
  const restored = await ports.workspace.writeFile({
    goalId: record.goalId,
    path: write.path,
    content: file.previous.content,
    writtenBy: { runId: record.runId, iteration: record.runIteration, toolUseId: writerId },
  });
  return { ...target, action: "restored", version: restored.file.version };
}
