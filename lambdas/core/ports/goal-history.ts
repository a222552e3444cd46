import { GoalRecordSchema } from "../goal/goal-record";
import { RECORD_SCHEMA } from "../goal/record-schema";
import { ModelRoleSchema } from "../models/model-roles";
import * as z from "../zod";
import type { CheckpointKey, ModelCheckpoint } from "./goal-store";
import type { StepRecord } from "./step-log";

/**
 * The format of the step states this code works with and can fork from: the record schema
 * (record-schema.ts), since a step state holds a goal record. A state is stored in the format of the
 * schema its goal is stored in (`putStepState`) and read back in this one. An older state is migrated forward as
 * its record is; a state written in a newer format (a later version of goal-loops wrote it) is never
 * read as this one: a fork from it is refused, naming the step, instead of starting from a
 * half-understood record.
 */
export const STEP_STATE_FORMAT = RECORD_SCHEMA;

/** A workspace file as a step state lists it: which version of the path the goal held then. */
export const ManifestEntrySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    path: z.string(),
    sha256: z.string(),
    version: z.number().check(z.int(), z.gte(1)),
  }),
);
export type ManifestEntry = z.infer<typeof ManifestEntrySchema>;

/**
 * Where a goal stood right after a verify cycle counted step `step`: everything a fork needs to start
 * there and a replay checks. Written once per step by the pattern's verify step (first writer wins)
 * and never changed, so it can be read while the goal runs on.
 */
export const StepStateSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    format: z.literal(STEP_STATE_FORMAT),
    goalId: z.string(),
    step: z.number().check(z.int(), z.gte(1)),
    /** The record with the step counted (evidence, progress, plan, lessons, usage, revision). */
    record: GoalRecordSchema,
    /**
     * How many calls of each role the goal had checkpointed then: the call numbers a fork's next call
     * of the role continues from (fixtures and `requestMetadata.call`), and which checkpoints it inherits.
     */
    calls: z.partialRecord(ModelRoleSchema, z.number().check(z.int(), z.gte(0))),
    /** The workspace then: each file's path, content hash and version. */
    workspace: z.array(ManifestEntrySchema),
    /** The plan step the step executed (plan_execute). */
    planStepId: z.optional(z.string()),
    at: z.iso.datetime(),
  }),
);
export type StepState = z.infer<typeof StepStateSchema>;

/** What `getStepState` found: the state, or that a newer goal-loops wrote it in a format this one does not read. */
export type StoredStepState =
  | { readonly kind: "state"; readonly state: StepState }
  | { readonly kind: "newer_format"; readonly format: number };

/** What a verify step hands over once it counted a step; the store adds the calls and the workspace. */
export interface CountedStep {
  readonly goalId: string;
  readonly step: number;
  readonly record: StepState["record"];
  readonly planStepId?: string;
  readonly at: string;
}

/**
 * What a step state holds besides the record, read once the verify cycle's own calls are made and
 * before any later call: the calls checkpointed so far (by key, so a step can leave out one it
 * knows came after the point the state stands for) and the workspace's files.
 */
export interface StepStateBasis {
  readonly checkpoints: readonly CheckpointKey[];
  readonly workspace: readonly ManifestEntry[];
}

/**
 * How many calls each role had checkpointed (a step state's `calls`): the keys counted per role,
 * but those in `excluding` (calls made after the point the state stands for).
 */
export function callsPerRole(
  checkpoints: readonly CheckpointKey[],
  excluding: readonly CheckpointKey[] = [],
): StepState["calls"] {
  const left = new Set(excluding.map(keyText));
  const calls: StepState["calls"] = {};
  for (const key of checkpoints) {
    if (!left.has(keyText(key))) calls[key.role] = (calls[key.role] ?? 0) + 1;
  }
  return calls;
}

function keyText({ goalId, runId, iteration, role, ordinal }: CheckpointKey): string {
  return JSON.stringify([goalId, runId, iteration, role, ordinal]);
}

/** What the verify steps need: to record the state of each step they count. */
export interface StepStateRecorder {
  /**
   * Stores the state after `counted.step` with the checkpointed calls per role and the workspace's
   * files as they are now. The first writer wins: a retried verify step keeps the first state.
   */
  recordStepState(counted: CountedStep): Promise<void>;
  /** The checkpointed calls and the workspace's files as they are now (two queries at once). */
  readStepStateBasis(goalId: string): Promise<StepStateBasis>;
  /**
   * Puts a state as given; first writer wins. It is written in the record schema its record says its
   * goal is stored in (`record.schema`; absent: this code's), its `format` that schema and its
   * document as that schema's code wrote it: the goal's own version, possibly older than this code
   * (a rollback), forks and replays from it. `recordStepState` writes the same way.
   */
  putStepState(state: StepState): Promise<void>;
}

/**
 * A goal's history as forks and replays read it, and as a fork copies it into its own partition.
 * Every read is of immutable items (step records, states, checkpoints, fingerprints), so it may run
 * while the goal runs on.
 */
export interface GoalHistory extends StepStateRecorder {
  getStepState(goalId: string, step: number): Promise<StoredStepState | undefined>;
  /** Step records `from` to `to` (inclusive), oldest first; missing numbers are simply absent. */
  listSteps(goalId: string, range: { readonly from: number; readonly to: number }): Promise<StepRecord[]>;
  /** Every model checkpoint of the goal, in key order. */
  listCheckpoints(goalId: string): Promise<ModelCheckpoint[]>;
  /** Every fingerprint the goal's verify cycles saw, with the first step that saw it. */
  listFingerprints(goalId: string): Promise<{ readonly fingerprint: string; readonly step: number }[]>;
}
