import { canonicalJson, sha256Hex } from "../goal/canonical-json";
import type { GoalRecord } from "../goal/goal-record";
import type { Pattern } from "../goal/goal-spec";
import { EMPTY_USAGE, type Usage } from "../goal/usage";
import { ACTING_ROLE } from "../loop/acting-role";
import type { ModelRole } from "../models/model-roles";
import type { ManifestEntry, StepState } from "../ports/goal-history";
import type { ModelCheckpoint } from "../ports/goal-store";
import type { StepRecord } from "../ports/step-log";

/** The role whose turn a step acts on (reason, execute or attempt, by the pattern). */
export function actingRole(pattern: Pattern): ModelRole {
  return ACTING_ROLE[pattern];
}

/** Checkpoints indexed for finding the one a step acted on. */
export interface CheckpointIndex {
  readonly byKey: ReadonlyMap<string, ModelCheckpoint>;
  readonly byTurn: ReadonlyMap<string, ModelCheckpoint>;
}

const keyOf = (goalId: string, role: ModelRole, runId: string, iteration: number, ordinal: number) =>
  JSON.stringify([goalId, role, runId, iteration, ordinal]);

const turnHash = (role: ModelRole, turn: unknown) => `${role}:${sha256Hex(canonicalJson(turn as never))}`;

export function indexCheckpoints(checkpoints: readonly ModelCheckpoint[]): CheckpointIndex {
  const byKey = new Map<string, ModelCheckpoint>();
  const byTurn = new Map<string, ModelCheckpoint>();
  for (const checkpoint of checkpoints) {
    const { goalId, role, runId, iteration, ordinal } = checkpoint.key;
    byKey.set(keyOf(goalId, role, runId, iteration, ordinal), checkpoint);
    byTurn.set(turnHash(role, checkpoint.turn), checkpoint);
  }
  return { byKey, byTurn };
}

/**
 * What the checkpoints say of a step's turn: `same` when a checkpoint of the acting role holds
 * exactly the turn the step log recorded (found by its key, or by its content for a Plan-and-Execute
 * batch turn, checkpointed under the batch's key); `differs` when the checkpoint under the step's
 * own key holds another turn; `missing` when none holds it.
 */
export type TurnMatch =
  | { readonly kind: "same"; readonly checkpoint: ModelCheckpoint }
  | { readonly kind: "differs"; readonly checkpoint: ModelCheckpoint }
  | { readonly kind: "missing" };

export function matchTurn(
  index: CheckpointIndex,
  pattern: Pattern,
  goalId: string,
  step: StepRecord,
): TurnMatch {
  const role = actingRole(pattern);
  const own = index.byKey.get(keyOf(goalId, role, step.runId, step.iteration, 0));
  const hash = turnHash(role, step.turn);
  if (own && turnHash(role, own.turn) === hash) return { kind: "same", checkpoint: own };
  const elsewhere = index.byTurn.get(hash);
  if (elsewhere) return { kind: "same", checkpoint: elsewhere };
  return own ? { kind: "differs", checkpoint: own } : { kind: "missing" };
}

/** A workspace as one hash: its files' paths and content hashes, in path order. */
export function workspaceSha256(files: readonly Pick<ManifestEntry, "path" | "sha256">[]): string {
  const sorted = [...files]
    .map(({ path, sha256 }) => ({ path, sha256 }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return sha256Hex(canonicalJson(sorted));
}

/**
 * The goal's own usage per role in a state: what its calls cost, without what its sub-goals'
 * usage added to it (a parent's usage includes its children's, DESIGN §6).
 */
export function ownUsageByRole(record: GoalRecord): Partial<Record<ModelRole, Usage>> {
  const own: Partial<Record<ModelRole, Usage>> = {};
  for (const [role, usage] of Object.entries(record.usageByRole) as [ModelRole, Usage][]) {
    const left = { ...usage };
    for (const entry of record.subgoals ?? []) {
      const child = entry.usageByRole?.[role];
      if (child === undefined) continue;
      left.inputTokens -= child.inputTokens;
      left.outputTokens -= child.outputTokens;
      left.modelCalls -= child.modelCalls;
    }
    own[role] = left;
  }
  return own;
}

/** The usage between two states: what the steps between them cost (the first step from zero). */
export function usageBetween(earlier: StepState | undefined, later: StepState): Usage {
  const before = earlier?.record.usage ?? EMPTY_USAGE;
  const after = later.record.usage;
  return {
    inputTokens: after.inputTokens - before.inputTokens,
    outputTokens: after.outputTokens - before.outputTokens,
    cacheReadTokens: after.cacheReadTokens - before.cacheReadTokens,
    cacheWriteTokens: after.cacheWriteTokens - before.cacheWriteTokens,
    modelCalls: after.modelCalls - before.modelCalls,
    costUsd: Math.round((after.costUsd - before.costUsd) * 1e9) / 1e9,
  };
}
