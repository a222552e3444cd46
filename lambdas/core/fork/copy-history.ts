import { GoalLoopsError } from "../goal/errors";
import type { GoalRecord } from "../goal/goal-record";
import type { GoalHistory, StepState } from "../ports/goal-history";
import type { GoalStore } from "../ports/goal-store";
import type { StepLog, StepRecord } from "../ports/step-log";
import type { Workspace } from "../ports/workspace";
import type { ForkPoint } from "./fork-point";

export interface CopyHistoryPorts {
  readonly goals: Pick<GoalStore, "putCheckpoint" | "seenBefore">;
  readonly history: Pick<GoalHistory, "listSteps" | "listCheckpoints" | "listFingerprints" | "putStepState">;
  readonly stepLog: Pick<StepLog, "putStep">;
  readonly workspace: Pick<Workspace, "readVersion" | "writeFile" | "listFiles">;
}

/** A file version the source's state names is no longer in its workspace: the fork cannot start there. */
export class ForkSourceIncompleteError extends GoalLoopsError {
  override readonly name = "ForkSourceIncompleteError";
}

/** Who wrote the files a fork starts with: the fork itself, before its first run. */
const FORK_WRITER = { runId: "fork", iteration: 0 } as const;

/**
 * Copies what the fork inherits into its own partition, before its goal item exists: the step log
 * up to the step, the checkpoints of the calls made by then, the fingerprints seen by then and the
 * workspace's files as they were (each path at the version the state names). Then the fork's own
 * state of that step. Every write is first-writer-wins or idempotent, so a request repeated after a
 * crash copies the rest and changes nothing twice.
 *
 * The fork's call numbers go on from the copied checkpoints (a role's next call number is how many
 * it has), so its first call of each role is the source's next one: a scripted model serves it the
 * same turn the source's next call got. The copied checkpoints keep their keys, and the fork's runs
 * are named apart from every run they name (`forkRunId`).
 */
export async function copyHistory(
  ports: CopyHistoryPorts,
  input: {
    readonly point: ForkPoint;
    /** The fork's first record: its own state of the step (a fork of the fork at that step starts from it). */
    readonly record: GoalRecord;
  },
): Promise<void> {
  const { point } = input;
  const forkGoalId = input.record.goalId;
  const { owner, state } = point;
  const [steps, checkpoints, fingerprints] = await Promise.all([
    ports.history.listSteps(owner.goalId, { from: 1, to: state.step }),
    ports.history.listCheckpoints(owner.goalId),
    ports.history.listFingerprints(owner.goalId),
  ]);
  // In the fork's own record schema (its record says; the state below too), whatever the source's.
  const { schema } = input.record;
  for (const step of steps) await ports.stepLog.putStep(inheritedStep(step, forkGoalId), schema);
  for (const checkpoint of checkpoints) {
    if (checkpoint.call >= (state.calls[checkpoint.key.role] ?? 0)) continue;
    await ports.goals.putCheckpoint(
      { ...checkpoint, key: { ...checkpoint.key, goalId: forkGoalId } },
      schema,
    );
  }
  const byStep = new Map<number, string[]>();
  for (const { fingerprint, step } of fingerprints) {
    if (step <= state.step) byStep.set(step, [...(byStep.get(step) ?? []), fingerprint]);
  }
  for (const [step, seen] of byStep) await ports.goals.seenBefore(forkGoalId, step, seen);
  await copyWorkspace(ports, state, owner.goalId, forkGoalId);
  const files = await ports.workspace.listFiles(forkGoalId);
  await ports.history.putStepState({
    ...state,
    goalId: forkGoalId,
    record: input.record,
    workspace: files.map(({ path, sha256, version }) => ({ path, sha256, version })),
    at: input.record.createdAt,
  });
}

/**
 * A step as the fork keeps it: the same record, except that its conversation is another one. Its
 * reasoning blocks are bound to the source's conversation, so the fork's prompts show its text and
 * tool calls only (a reasoning block goes back byte for byte to its own conversation, or not at all).
 */
function inheritedStep(step: StepRecord, forkGoalId: string): StepRecord {
  const { conversation } = step;
  return {
    ...step,
    goalId: forkGoalId,
    ...(conversation === undefined
      ? {}
      : { conversation: { ...conversation, key: `inherited:${conversation.key}` } }),
  };
}

async function copyWorkspace(
  ports: CopyHistoryPorts,
  state: StepState,
  sourceGoalId: string,
  forkGoalId: string,
): Promise<void> {
  for (const entry of state.workspace) {
    const version = await ports.workspace.readVersion(sourceGoalId, entry.path, entry.version);
    if (version === undefined || version.deleted || version.sha256 !== entry.sha256) {
      throw new ForkSourceIncompleteError(
        `goal ${sourceGoalId} no longer holds version ${entry.version} of '${entry.path}' as step ${state.step} left it`,
      );
    }
    await ports.workspace.writeFile({
      goalId: forkGoalId,
      path: entry.path,
      content: version.content,
      writtenBy: { ...FORK_WRITER, toolUseId: `fork-of-${sourceGoalId}-${state.step}` },
    });
  }
}
