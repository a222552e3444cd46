import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { downgradeStored, upgradeStored, writableSchema } from "../../core/goal/record-schema";
import { parseOrThrow } from "../../core/goal/validation";
import {
  type CountedStep,
  callsPerRole,
  type GoalHistory,
  type ManifestEntry,
  STEP_STATE_FORMAT,
  type StepState,
  type StepStateBasis,
  StepStateSchema,
  type StoredStepState,
} from "../../core/ports/goal-history";
import { type CheckpointKey, CheckpointKeySchema, type ModelCheckpoint } from "../../core/ports/goal-store";
import { type StepLog, type StepRecord, StepRecordSchema } from "../../core/ports/step-log";
import * as z from "../../core/zod";
import { getItemConsistently } from "./dynamodb-get-item";
import { queryGoalPartition } from "./dynamodb-goal-partition";
import { readCheckpoint } from "./dynamodb-goal-store";
import {
  parseStoredItem,
  parseVersionedItem,
  SCHEMA_ATTRIBUTE,
  stateAttribute,
  stateOf,
  toDocument,
  versionedAttributes,
} from "./dynamodb-items";
import { putFirst } from "./dynamodb-put-first";
import {
  CHECKPOINT_PREFIX,
  FINGERPRINT_PREFIX,
  invalidField,
  STEP_PREFIX,
  stepKey,
  stepStateKey,
  WORKSPACE_FILE_PREFIX,
} from "./goal-table-keys";
import { TABLE_DESIGN } from "./table-design";

const MAX_RECENT_STEPS = 1000;
const SK = TABLE_DESIGN.sortKey;

export interface DynamoDbStepLogOptions {
  /** Created once at module scope by the handler and shared across invocations. */
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

/** A step item's record, migrated forward from its schema (or RecordSchemaTooNewError). */
function readStep(item: Record<string, unknown>): StepRecord {
  return parseVersionedItem(StepRecordSchema, "step", item.record, item[SCHEMA_ATTRIBUTE], "step record");
}

/**
 * A step state item: its format in the clear (read before anything is parsed), the state compressed
 * (encoded from format 3, brotli before: dynamodb-items.ts `stateAttribute`).
 */
const StateItemSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    format: z.number().check(z.int(), z.gte(1)),
    state: z.instanceof(Uint8Array),
  }),
);
const FingerprintItemSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    fingerprint: z.string(),
    step: z.number().check(z.int(), z.gte(0)),
  }),
);
/** A workspace file item as a manifest reads it (a deletion's tombstone is no file). */
const ManifestItemSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    path: z.string(),
    sha256: z.string(),
    version: z.number().check(z.int(), z.gte(1)),
    deleted: z.optional(z.literal(true)),
  }),
);

/**
 * The goal's history as items of the goal table. The step log (sk `STEP#<step>`, the record under
 * `record`) is append-only: a step number is written once, so a retried act step cannot replace what
 * the model already saw. Beside each counted step its state (sk `STATE#<step>`, see StepStateSchema),
 * written once too; with the checkpoints and the fingerprints they are what a fork copies and a
 * replay checks (GoalHistory).
 */
export class DynamoDbStepLog implements StepLog, GoalHistory {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(options: DynamoDbStepLogOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
  }

  async putStep(step: StepRecord, schema?: number): Promise<StepRecord | undefined> {
    const record = parseOrThrow(StepRecordSchema, toDocument(step), "step record");
    const what = `step ${record.step} of goal ${record.goalId}`;
    // First writer wins: an earlier attempt (or a racing one) may have logged this number already.
    const stored = await putFirst(this.client, {
      tableName: this.tableName,
      key: stepKey(record.goalId, record.step),
      item: versionedAttributes("step", "record", record, writableSchema("step", schema, what)),
      operation: "putStep",
    });
    return stored && readStep(stored);
  }

  async listRecentSteps(goalId: string, limit: number): Promise<readonly StepRecord[]> {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RECENT_STEPS) {
      throw invalidField("limit", `must be an integer from 1 to ${MAX_RECENT_STEPS}`);
    }
    const newestFirst = await queryGoalPartition(this.client, {
      tableName: this.tableName,
      goalId,
      prefix: STEP_PREFIX,
      newestFirst: true,
      limit,
      operation: "listRecentSteps",
    });
    return newestFirst.reverse().map(readStep);
  }

  async listSteps(goalId: string, range: { from: number; to: number }): Promise<StepRecord[]> {
    if (range.to < range.from) return [];
    const items = await queryGoalPartition(this.client, {
      tableName: this.tableName,
      goalId,
      prefix: STEP_PREFIX,
      between: { from: stepKey(goalId, range.from)[SK], to: stepKey(goalId, range.to)[SK] },
      operation: "listSteps",
    });
    return items.map(readStep);
  }

  async recordStepState(counted: CountedStep): Promise<void> {
    // Both read now, once the step is counted and before anything after it is called or written.
    const { checkpoints, workspace } = await this.readStepStateBasis(counted.goalId);
    await this.putStepState({
      format: STEP_STATE_FORMAT,
      ...counted,
      calls: callsPerRole(checkpoints),
      workspace: [...workspace],
    });
  }

  async readStepStateBasis(goalId: string): Promise<StepStateBasis> {
    const [checkpoints, workspace] = await Promise.all([
      this.checkpointKeys(goalId),
      this.workspaceManifest(goalId),
    ]);
    return { checkpoints, workspace };
  }

  async putStepState(state: StepState): Promise<void> {
    const parsed = parseOrThrow(StepStateSchema, toDocument(state), "step state");
    // In the schema of the goal the state holds the record of (its `format` is that schema), written
    // as that schema's code wrote it: the code of the version the goal runs on forks from it.
    const what = `state of step ${parsed.step} of goal ${parsed.goalId}`;
    const format = writableSchema("stepState", parsed.record.schema, what);
    await putFirst(this.client, {
      tableName: this.tableName,
      key: stepStateKey(parsed.goalId, parsed.step),
      item: {
        format,
        step: parsed.step,
        state: stateAttribute(downgradeStored("stepState", parsed, format), format),
      },
      operation: "putStepState",
    });
  }

  async getStepState(goalId: string, step: number): Promise<StoredStepState | undefined> {
    const item = await getItemConsistently(
      this.client,
      this.tableName,
      stepStateKey(goalId, step),
      "getStepState",
    );
    if (!item) return undefined;
    const stored = parseStoredItem(StateItemSchema, item, `state of step ${step}`);
    // A newer goal-loops may have changed the shape: never parse it as this one's.
    if (stored.format > STEP_STATE_FORMAT) return { kind: "newer_format", format: stored.format };
    const what = `state of step ${step}`;
    const state = upgradeStored("stepState", stateOf(stored.state, stored.format, what), stored.format, what);
    return { kind: "state", state: parseStoredItem(StepStateSchema, state, what) };
  }

  async listCheckpoints(goalId: string): Promise<ModelCheckpoint[]> {
    const items = await queryGoalPartition(this.client, {
      tableName: this.tableName,
      goalId,
      prefix: CHECKPOINT_PREFIX,
      operation: "listCheckpoints",
    });
    return items.map(readCheckpoint);
  }

  async listFingerprints(goalId: string): Promise<{ fingerprint: string; step: number }[]> {
    const items = await queryGoalPartition(this.client, {
      tableName: this.tableName,
      goalId,
      prefix: FINGERPRINT_PREFIX,
      attributes: ["fingerprint", "step"],
      operation: "listFingerprints",
    });
    return items.map((item) => parseStoredItem(FingerprintItemSchema, item, "fingerprint item"));
  }

  /** The key of every checkpoint of the goal (sort keys only: the turns are not read). */
  private async checkpointKeys(goalId: string): Promise<CheckpointKey[]> {
    const items = await queryGoalPartition(this.client, {
      tableName: this.tableName,
      goalId,
      prefix: CHECKPOINT_PREFIX,
      attributes: [SK],
      operation: "recordStepState",
    });
    return items.flatMap((item) => {
      // `CKPT#<role>#<run>#<iteration>#<ordinal>` (a run id holds no '#'); a key of a role this
      // code does not know is not counted, as before.
      const [, role, runId, iteration, ordinal] = String(item[SK]).split("#");
      const key = CheckpointKeySchema.safeParse({
        goalId,
        role,
        runId,
        iteration: Number(iteration),
        ordinal: Number(ordinal),
      });
      return key.success ? [key.data] : [];
    });
  }

  /** The workspace's files as they are now, without their content (a deletion's tombstone left out). */
  private async workspaceManifest(goalId: string): Promise<ManifestEntry[]> {
    const items = await queryGoalPartition(this.client, {
      tableName: this.tableName,
      goalId,
      prefix: WORKSPACE_FILE_PREFIX,
      attributes: ["path", "sha256", "version", "deleted"],
      operation: "recordStepState",
    });
    return items
      .map((item) => parseStoredItem(ManifestItemSchema, item, "workspace entry"))
      .flatMap(({ deleted, ...entry }) => (deleted ? [] : [entry]))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}
