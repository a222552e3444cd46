import {
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import type { GoalLoopsError } from "../../core/goal/errors";
import { type GoalEvent, GoalEventSchema, type NewGoalEvent } from "../../core/goal/goal-event";
import {
  type GoalRecord,
  GoalRecordSchema,
  type GoalStatus,
  GoalStatusSchema,
} from "../../core/goal/goal-record";
import {
  downgradeStored,
  RECORD_SCHEMA,
  RecordSchemaTooNewError,
  storedSchemaOf,
  writableSchema,
} from "../../core/goal/record-schema";
import { parseOrThrow } from "../../core/goal/validation";
import {
  type Approval,
  ApprovalAlreadyDecidedError,
  ApprovalAlreadyExistsError,
  ApprovalNotFoundError,
  ApprovalSchema,
  type ApprovalStatus,
  type CheckpointKey,
  CheckpointKeySchema,
  type CheckpointLookup,
  type CommitOptions,
  ConcurrentModificationError,
  GoalAlreadyExistsError,
  GoalNotFoundError,
  type GoalStore,
  type ModelCheckpoint,
  ModelCheckpointSchema,
  type Page,
  type VersionedGoal,
} from "../../core/ports/goal-store";
import * as z from "../../core/zod";
import { isConditionalCheckFailed, isValidationException, toStoreError } from "../shared/store-errors";
import { DynamoDbEventLog, numberEvents } from "./dynamodb-event-log";
import { getItemConsistently } from "./dynamodb-get-item";
import { queryGoalPartition } from "./dynamodb-goal-partition";
import {
  ENCODED_DOCUMENTS_SCHEMA,
  parseStoredItem,
  parseVersionedItem,
  SCHEMA_ATTRIBUTE,
  schemaAttribute,
  stateAttribute,
  stateOf,
  toDocument,
  versionedAttributes,
} from "./dynamodb-items";
import { putFirst } from "./dynamodb-put-first";
import {
  ANY_STATUS_PREFIX,
  approvalIndexKeys,
  approvalKey,
  approvalsPartition,
  checkpointKey,
  checkpointRolePrefix,
  checkpointRunPrefix,
  decodeCursor,
  encodeCursor,
  fingerprintKey,
  goalIndexKeys,
  goalKey,
  goalsPartition,
  invalidField,
  statusPrefix,
} from "./goal-table-keys";
import { TABLE_DESIGN } from "./table-design";

export interface DynamoDbGoalStoreOptions {
  /** Created once at module scope by the handler and shared across invocations. */
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** Clock for TTLs. @default () => new Date() */
  readonly now?: () => Date;
}

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;
const DAY_SECONDS = 24 * 60 * 60;
/** How long an approval stays readable after it was decided (or after it expired undecided). */
const APPROVAL_RETENTION_SECONDS = 30 * DAY_SECONDS;

const PK = TABLE_DESIGN.partitionKey;
const SK = TABLE_DESIGN.sortKey;
const TTL = TABLE_DESIGN.ttlAttribute;

/** The record and the outbox of a goal item, before they are checked against the domain schemas. */
const GoalStateSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    record: z.unknown(),
    pendingEvents: z.array(z.unknown()),
  }),
);

/**
 * The goal item as stored. `state` holds the record and the outbox encoded (dynamodb-items.ts
 * `stateAttribute`: from record schema 3 deflated against a dictionary, brotli before): the item
 * DynamoDB stores (and bills every write of by size) is a fraction of the plain one. Items written
 * before that keep them as the plain `record` and `pendingEvents` attributes, still read.
 */
const CompressedGoalItemSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    version: z.number().check(z.int(), z.gte(1)),
    state: z.instanceof(Uint8Array),
  }),
);
const PlainGoalItemSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.extend(GoalStateSchema, { version: z.number().check(z.int(), z.gte(1)) }),
);

/** A fingerprint item: the first step that saw the fingerprint. Written once, never changed. */
const FingerprintItemSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({ step: z.number().check(z.int(), z.gte(0)) }),
);

const DecidedStatusSchema = /* @__PURE__ */ z.lazySchema(() => {
  const { pending: _pending, ...decidedStatuses } = ApprovalSchema.shape.status.def.entries;
  return z.enum(decidedStatuses);
});

interface IndexPage {
  readonly items: readonly Record<string, unknown>[];
  readonly lastEvaluatedKey: Record<string, unknown> | undefined;
}

interface StoredGoal extends VersionedGoal {
  /** The outbox: the events of the write that produced this version. */
  readonly pendingEvents: readonly GoalEvent[];
  /**
   * The record schema the item is stored in: every later write keeps it (the goal's version reads
   * that shape), whatever shape the writer's own code has.
   */
  readonly schema: number;
}

/** What this store last read or wrote of a goal, so a commit from that version needs no read. */
interface KnownGoal extends StoredGoal {
  /**
   * Whether the outbox is stored as event items (this store wrote them after its commit), once the
   * write it started is done: a commit that left them in the background does not wait for them.
   */
  readonly outboxWritten: Promise<boolean>;
}

const NOT_WRITTEN = Promise.resolve(false);

/** Goals whose last known version a store keeps: a step works on one goal, a warm container on a few. */
const KNOWN_GOALS = 32;

/**
 * The GoalStore on one DynamoDB table (see table-design.ts), without DynamoDB transactions: dynalite
 * has none, and a conditional write on one item is all the goal needs.
 *
 * Event log (append-only, gap-free per goal, from seq 1), kept with an outbox:
 * 1. `commit` reads the goal item and checks its version. Sequence numbers are allocated from the
 *    stored `lastEventSeq`; the conditional PutItem on `version = :expected` is the lock, so only
 *    one writer can ever claim a given seq, and each seq has exactly one content.
 * 2. That one PutItem writes the record (with the new `lastEventSeq`) and the new events in the
 *    goal item's `pendingEvents` attribute. Once it succeeds, the events are committed.
 * 3. Then each event is put as its own item (sk `EVT#<seq>`, BatchWriteItem): a repeat writes the
 *    same content again. These puts are best-effort: a crash or error here loses nothing, the outbox holds them.
 *    `commit` waits for them, or leaves them in the background for a caller that goes on working
 *    (`CommitOptions.eventsInBackground`) and awaits `settled()` before it answers.
 * 4. Before the next commit overwrites `pendingEvents`, it writes whichever of them are missing and
 *    fails if it cannot. Every seq <= lastEventSeq is therefore either an event item or in the outbox.
 * 5. `listEvents` reads the goal item first, queries the event items up to its `lastEventSeq`, and
 *    fills any missing seq from the outbox (writing it back, best-effort).
 *
 * A version's content never changes (every write bumps it), so the store remembers the last version
 * it read or wrote of each goal: a commit from that version skips reading the goal item again (the
 * conditional put still guards it), and skips step 4 once the write of that outbox's events this
 * store started (possibly in the background) answered that all of them are stored.
 */
export class DynamoDbGoalStore implements GoalStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly now: () => Date;
  private readonly events: DynamoDbEventLog;
  private readonly known = new Map<string, KnownGoal>();
  /** Event writes left in the background by `commit` and not done yet. */
  private readonly inFlight = new Set<Promise<boolean>>();

  constructor(options: DynamoDbGoalStoreOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.now = options.now ?? (() => new Date());
    this.events = new DynamoDbEventLog(options.client, options.tableName);
  }

  async createGoal(record: GoalRecord, events: readonly NewGoalEvent[]): Promise<VersionedGoal> {
    const parsed = parseRecord(record);
    // A new goal is stored in the schema its version reads (the record says), by default this code's.
    const schema = writableSchema("goal", parsed.schema, `goal ${parsed.goalId}`);
    const numbered = numberEvents(parsed.goalId, 0, events);
    const written: GoalRecord = inMemory({ ...parsed, lastEventSeq: numbered.length }, schema);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: goalItem(written, 1, numbered, schema),
          ConditionExpression: "attribute_not_exists(#pk)",
          ExpressionAttributeNames: { "#pk": PK },
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailed(error)) {
        throw new GoalAlreadyExistsError(`Goal ${parsed.goalId} already exists`, { cause: error });
      }
      throw toStoreError(error, "createGoal");
    }
    const outboxWritten = this.events.appendBestEffort(numbered, schema);
    await outboxWritten;
    this.remember({ record: written, version: 1, pendingEvents: numbered, outboxWritten, schema });
    return { record: written, version: 1 };
  }

  async getGoal(goalId: string): Promise<VersionedGoal | undefined> {
    const stored = await this.readGoal(goalId);
    return stored && { record: stored.record, version: stored.version };
  }

  lastKnown(goalId: string): GoalRecord | undefined {
    return this.known.get(goalId)?.record;
  }

  async commit(
    record: GoalRecord,
    expectedVersion: number,
    events: readonly NewGoalEvent[],
    options: CommitOptions = {},
  ): Promise<VersionedGoal> {
    const parsed = parseRecord(record);
    const remembered = this.known.get(parsed.goalId);
    const stored = remembered?.version === expectedVersion ? remembered : await this.readGoal(parsed.goalId);
    if (!stored) throw new GoalNotFoundError(`Goal ${parsed.goalId} does not exist`);
    if (stored.version !== expectedVersion) throw staleWrite(parsed.goalId, expectedVersion, stored.version);
    if (stored.record.tenantId !== parsed.tenantId) {
      throw invalidField("tenantId", "a goal cannot change tenant");
    }

    // Outbox rule: the previous write's events must be durable before its outbox is overwritten.
    if (!(stored === remembered && (await remembered.outboxWritten))) {
      await this.events.ensureWritten(parsed.goalId, stored.pendingEvents, stored.schema);
    }

    const numbered = numberEvents(parsed.goalId, stored.record.lastEventSeq, events);
    // Written in the schema it is stored in: its goal's own steps may read no newer one.
    const { schema } = stored;
    const written: GoalRecord = inMemory(
      { ...parsed, lastEventSeq: stored.record.lastEventSeq + numbered.length },
      schema,
    );
    const version = expectedVersion + 1;
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: goalItem(written, version, numbered, schema),
          ConditionExpression: "#version = :expected",
          ExpressionAttributeNames: { "#version": "version" },
          ExpressionAttributeValues: { ":expected": expectedVersion },
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailed(error)) {
        this.known.delete(parsed.goalId);
        throw new ConcurrentModificationError(
          `Goal ${parsed.goalId} changed since version ${expectedVersion} was read`,
          { cause: error },
        );
      }
      throw toStoreError(error, "commit");
    }
    // Best effort: answers false when an event item could not be written, and never rejects, so it
    // can be left in the background.
    const outboxWritten = this.events.appendBestEffort(numbered, schema);
    this.remember({ record: written, version, pendingEvents: numbered, outboxWritten, schema });
    if (options.eventsInBackground === true) {
      this.inFlight.add(outboxWritten);
      void outboxWritten.finally(() => this.inFlight.delete(outboxWritten));
    } else {
      await outboxWritten;
    }
    return { record: written, version };
  }

  async settled(): Promise<void> {
    await Promise.all(this.inFlight);
  }

  async listGoals(query: {
    tenantId: string;
    status?: GoalStatus;
    limit?: number;
    cursor?: string;
  }): Promise<Page<GoalRecord>> {
    const limit = pageSize(query.limit);
    if (query.status !== undefined && !GoalStatusSchema.safeParse(query.status).success) {
      throw invalidField("status", `must be one of ${GoalStatusSchema.options.join(", ")}`);
    }
    const partition = goalsPartition(query.tenantId);
    const sortKeyPrefix = query.status === undefined ? ANY_STATUS_PREFIX : statusPrefix(query.status);
    const startKey =
      query.cursor === undefined ? undefined : decodeCursor(query.cursor, { partition, sortKeyPrefix });
    const page = await this.queryIndex(partition, sortKeyPrefix, limit, startKey).catch((error: unknown) => {
      // DynamoDB's own check of ExclusiveStartKey: the cursor was well-formed but not one of ours.
      if (startKey && isValidationException(error)) {
        throw invalidField("cursor", "is not a cursor this listing returned");
      }
      throw toStoreError(error, "listGoals");
    });
    const items = page.items.map((item) => {
      const state = storedGoalState(item);
      return readRecord(state.record, state.schema, `record of goal item ${String(item[PK])}`);
    });
    const lastKey = page.lastEvaluatedKey;
    return lastKey === undefined ? { items } : { items, cursor: encodeCursor(lastKey) };
  }

  async countGoals(query: { tenantId: string; status: GoalStatus }): Promise<number> {
    if (!GoalStatusSchema.safeParse(query.status).success) {
      throw invalidField("status", `must be one of ${GoalStatusSchema.options.join(", ")}`);
    }
    const index = TABLE_DESIGN.statusIndex;
    let count = 0;
    let startKey: Record<string, unknown> | undefined;
    // Select COUNT reads only keys' worth of capacity and returns no items; a page ends at 1 MB.
    do {
      const output = await this.client
        .send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: index.name,
            KeyConditionExpression: "#gpk = :partition AND begins_with(#gsk, :prefix)",
            ExpressionAttributeNames: { "#gpk": index.partitionKey, "#gsk": index.sortKey },
            ExpressionAttributeValues: {
              ":partition": goalsPartition(query.tenantId),
              ":prefix": statusPrefix(query.status),
            },
            Select: "COUNT",
            ExclusiveStartKey: startKey,
          }),
        )
        .catch((error: unknown) => {
          throw toStoreError(error, "countGoals");
        });
      count += output.Count ?? 0;
      startKey = output.LastEvaluatedKey;
    } while (startKey !== undefined);
    return count;
  }

  async listEvents(
    goalId: string,
    query: { after?: number; limit?: number },
  ): Promise<{ items: readonly GoalEvent[]; nextSeq: number }> {
    const after = query.after ?? 0;
    if (!Number.isInteger(after) || after < 0) throw invalidField("after", "must be an integer >= 0");
    const limit = pageSize(query.limit);
    const stored = await this.readGoal(goalId);
    if (!stored) throw new GoalNotFoundError(`Goal ${goalId} does not exist`);

    // Bounded by the lastEventSeq just read, so a commit racing this call cannot open a gap.
    const last = Math.min(stored.record.lastEventSeq, after + limit);
    if (last <= after) return { items: [], nextSeq: after };
    const items = await this.events.read(goalId, after + 1, last, stored.pendingEvents, stored.schema);
    return { items, nextSeq: last };
  }

  async putApproval(approval: Approval): Promise<void> {
    const parsed = parseOrThrow(ApprovalSchema, toDocument(approval), "approval");
    if (parsed.status !== "pending") throw invalidField("status", "a new approval must be pending");
    const expiresAtSeconds = Math.floor(Date.parse(parsed.expiresAt) / 1000);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: approvalItem(parsed, expiresAtSeconds + APPROVAL_RETENTION_SECONDS),
          ConditionExpression: "attribute_not_exists(#pk)",
          ExpressionAttributeNames: { "#pk": PK },
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailed(error)) {
        throw new ApprovalAlreadyExistsError(`Approval ${parsed.approvalId} already exists`, {
          cause: error,
        });
      }
      throw toStoreError(error, "putApproval");
    }
  }

  async getApproval(approvalId: string): Promise<Approval | undefined> {
    const item = await getItemConsistently(
      this.client,
      this.tableName,
      approvalKey(approvalId),
      "getApproval",
    );
    return item && parseStoredItem(ApprovalSchema, item.approval, "approval");
  }

  async decideApproval(
    approvalId: string,
    outcome: { status: Exclude<ApprovalStatus, "pending">; decision?: Approval["decision"] },
  ): Promise<Approval> {
    if (!DecidedStatusSchema.safeParse(outcome.status).success) {
      throw invalidField("status", `must be one of ${DecidedStatusSchema.options.join(", ")}`);
    }
    // A new wait may store its token between the read and the write (`replaceApprovalToken`): the
    // write is conditional on the token read too, and a pending approval whose token moved is
    // decided again on the fresh read, so the decision never brings back a dead wait's token.
    for (let attempt = 0; ; attempt += 1) {
      const current = await this.getApproval(approvalId);
      if (!current) throw new ApprovalNotFoundError(`Approval ${approvalId} does not exist`);
      if (current.status !== "pending") throw alreadyDecided(approvalId, current.status);
      const decided = parseOrThrow(
        ApprovalSchema,
        toDocument({ ...current, status: outcome.status, decision: outcome.decision }),
        "approval decision",
      );
      const ttlSeconds = Math.floor(this.now().getTime() / 1000) + APPROVAL_RETENTION_SECONDS;
      try {
        // The condition makes the decision exactly-once: of many concurrent deciders, one write passes.
        await this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: approvalItem(decided, ttlSeconds),
            ConditionExpression: "#status = :pending AND #approval.#taskToken = :token",
            ExpressionAttributeNames: {
              "#status": "status",
              "#approval": "approval",
              "#taskToken": "taskToken",
            },
            ExpressionAttributeValues: { ":pending": "pending", ":token": current.taskToken },
          }),
        );
        return decided;
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw toStoreError(error, "decideApproval");
        if (attempt >= MAX_TOKEN_RACES) throw alreadyDecided(approvalId, "decided", error);
      }
    }
  }

  async replaceApprovalToken(approvalId: string, taskToken: string): Promise<Approval> {
    try {
      // Only the token changes: a decision written meanwhile is kept, and its delivery goes to this
      // wait. An approval nobody can decide any more (expired, superseded) keeps its dead token.
      const updated = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: approvalKey(approvalId),
          UpdateExpression: "SET #approval.#taskToken = :token",
          ConditionExpression: "attribute_exists(#approval) AND #status IN (:pending, :approved, :rejected)",
          ExpressionAttributeNames: {
            "#status": "status",
            "#approval": "approval",
            "#taskToken": "taskToken",
          },
          ExpressionAttributeValues: {
            ":token": taskToken,
            ":pending": "pending",
            ":approved": "approved",
            ":rejected": "rejected",
          },
          ReturnValues: "ALL_NEW",
        }),
      );
      return parseStoredItem(ApprovalSchema, updated.Attributes?.approval, "approval");
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw toStoreError(error, "replaceApprovalToken");
      const current = await this.getApproval(approvalId);
      if (!current) throw new ApprovalNotFoundError(`Approval ${approvalId} does not exist`);
      throw alreadyDecided(approvalId, current.status, error);
    }
  }

  async listApprovals(query: {
    tenantId: string;
    status: ApprovalStatus;
    limit?: number;
  }): Promise<readonly Approval[]> {
    const limit = pageSize(query.limit);
    const partition = approvalsPartition(query.tenantId);
    const approvals: Approval[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.queryIndex(
        partition,
        statusPrefix(query.status),
        limit - approvals.length,
        startKey,
      ).catch((error: unknown) => {
        throw toStoreError(error, "listApprovals");
      });
      for (const item of page.items) {
        approvals.push(parseStoredItem(ApprovalSchema, item.approval, "approval"));
      }
      startKey = page.lastEvaluatedKey;
    } while (startKey && approvals.length < limit);
    return approvals;
  }

  async putCheckpoint(checkpoint: ModelCheckpoint, schema?: number): Promise<ModelCheckpoint> {
    const parsed = parseOrThrow(ModelCheckpointSchema, toDocument(checkpoint), "model checkpoint");
    const key = checkpointKey(parsed.key);
    const what = `checkpoint ${key[SK]} of goal ${parsed.key.goalId}`;
    const written = writableSchema("checkpoint", schema, what);
    // First writer wins: a retried step gets the response that was already paid for.
    const stored = await putFirst(this.client, {
      tableName: this.tableName,
      key,
      item: {
        // Schema 3 on: the checkpoint alone, encoded, its key naming the goal and the role. Items of
        // older schemas repeated both as attributes (nothing reads them), as their code wrote them.
        ...(written < ENCODED_DOCUMENTS_SCHEMA ? { goalId: parsed.key.goalId, role: parsed.key.role } : {}),
        ...versionedAttributes("checkpoint", "checkpoint", parsed, written),
      },
      operation: "putCheckpoint",
    });
    return stored ? readCheckpoint(stored) : parsed;
  }

  async getCheckpoint(key: z.input<typeof CheckpointKeySchema>): Promise<ModelCheckpoint | undefined> {
    const parsedKey = parseOrThrow(CheckpointKeySchema, key, "checkpoint key");
    const item = await getItemConsistently(
      this.client,
      this.tableName,
      checkpointKey(parsedKey),
      "getCheckpoint",
    );
    return item && readCheckpoint(item);
  }

  async findCheckpoint(key: z.input<typeof CheckpointKeySchema>): Promise<CheckpointLookup> {
    const parsedKey = parseOrThrow(CheckpointKeySchema, key, "checkpoint key");
    const sortKey = checkpointKey(parsedKey)[SK];
    // The role's newest call in this run (iterations and ordinals are zero-padded, so the last key
    // is the latest call): this call itself on a retry, or the one before it, whose number + 1 is
    // this call's. One small read, however many calls the goal made.
    const newest = await this.latestCheckpoint(parsedKey.goalId, parsedKey.role, parsedKey.runId);
    if (newest) {
      const newestKey = checkpointKey(newest.key)[SK];
      if (newestKey === sortKey) return { checkpoint: newest };
      if (newestKey < sortKey) return { checkpoint: undefined, calls: newest.call + 1 };
      // A key behind the run's newest (rare): it may exist.
      const checkpoint = await this.getCheckpoint(parsedKey);
      if (checkpoint) return { checkpoint };
    }
    // Not made yet, and the run's newest (if any) does not number it: count all the role's calls
    // (run ids need not sort in the order the runs came: r10 before r9).
    const keys = await queryGoalPartition(this.client, {
      tableName: this.tableName,
      goalId: parsedKey.goalId,
      prefix: checkpointRolePrefix(parsedKey.role),
      attributes: [SK],
      operation: "findCheckpoint",
    });
    return { checkpoint: undefined, calls: keys.length };
  }

  async latestCheckpoint(
    goalId: string,
    role: CheckpointKey["role"],
    runId: string,
  ): Promise<ModelCheckpoint | undefined> {
    const parsedRole = parseOrThrow(CheckpointKeySchema.shape.role, role, "role");
    const [newest] = await queryGoalPartition(this.client, {
      tableName: this.tableName,
      goalId,
      prefix: checkpointRunPrefix(parsedRole, runId),
      newestFirst: true,
      limit: 1,
      operation: "latestCheckpoint",
    });
    return newest && readCheckpoint(newest);
  }

  async seenBefore(
    goalId: string,
    step: number,
    fingerprints: readonly string[],
  ): Promise<readonly string[]> {
    if (!Number.isInteger(step) || step < 0) throw invalidField("step", "must be an integer >= 0");
    const unique = [...new Set(fingerprints)];
    const firstSteps = await Promise.all(
      unique.map((fingerprint) => this.firstStepOf(goalId, step, fingerprint)),
    );
    return unique.filter((_, index) => (firstSteps[index] ?? step) < step);
  }

  /**
   * The step that first saw `fingerprint`, writing `step` when none did. A conditional put first: a
   * new fingerprint, what a progressing goal mostly sees, costs that one request; a repeat (or a
   * racing writer) fails the condition and reads which step wrote it first.
   */
  private async firstStepOf(goalId: string, step: number, fingerprint: string): Promise<number> {
    const key = fingerprintKey(goalId, fingerprint);
    const first = await putFirst(this.client, {
      tableName: this.tableName,
      key,
      item: { fingerprint, step },
      operation: "seenBefore",
    });
    return first ? parseStoredItem(FingerprintItemSchema, first, "fingerprint item").step : step;
  }

  private async readGoal(goalId: string): Promise<StoredGoal | undefined> {
    const item = await getItemConsistently(this.client, this.tableName, goalKey(goalId), "getGoal");
    if (!item) {
      this.known.delete(goalId);
      return undefined;
    }
    const state = storedGoalState(item);
    const stored: StoredGoal = {
      record: readRecord(state.record, state.schema, `record of goal ${goalId}`),
      schema: state.schema,
      version: state.version,
      pendingEvents: state.pendingEvents.map((event) =>
        parseStoredItem(GoalEventSchema, event, `outbox event of goal ${goalId}`),
      ),
    };
    const remembered = this.known.get(goalId);
    // Reading the version this store wrote itself keeps what it knows of that outbox.
    const outboxWritten = remembered?.version === stored.version ? remembered.outboxWritten : NOT_WRITTEN;
    this.remember({ ...stored, outboxWritten });
    return stored;
  }

  private remember(goal: KnownGoal): void {
    const { goalId } = goal.record;
    this.known.delete(goalId);
    this.known.set(goalId, goal);
    // Oldest first in a Map's order: drop the least recently used goal past the bound.
    if (this.known.size > KNOWN_GOALS) {
      const [oldest] = this.known.keys();
      if (oldest !== undefined) this.known.delete(oldest);
    }
  }

  /** One page of the status index (goals or approvals of a tenant, optionally of one status). */
  private async queryIndex(
    partition: string,
    sortKeyPrefix: string,
    limit: number,
    startKey: Record<string, unknown> | undefined,
  ): Promise<IndexPage> {
    const index = TABLE_DESIGN.statusIndex;
    const input: QueryCommandInput = {
      TableName: this.tableName,
      IndexName: index.name,
      KeyConditionExpression: "#gpk = :partition AND begins_with(#gsk, :prefix)",
      ExpressionAttributeNames: { "#gpk": index.partitionKey, "#gsk": index.sortKey },
      ExpressionAttributeValues: { ":partition": partition, ":prefix": sortKeyPrefix },
      Limit: limit,
      ExclusiveStartKey: startKey,
    };
    const output = await this.client.send(new QueryCommand(input));
    return { items: output.Items ?? [], lastEvaluatedKey: output.LastEvaluatedKey };
  }
}

function goalItem(record: GoalRecord, version: number, pendingEvents: readonly GoalEvent[], schema: number) {
  const document = downgradeStored("goal", { ...record, schema }, schema);
  return {
    ...goalKey(record.goalId),
    ...goalIndexKeys(record),
    tenantId: record.tenantId,
    status: record.status,
    version,
    ...schemaAttribute(schema),
    state: stateAttribute({ record: document, pendingEvents }, schema),
  };
}

/**
 * A stored record in this code's shape, migrated forward from the schema it is stored in (or
 * RecordSchemaTooNewError). It says which schema that was (`schema`) only when it is an older one:
 * a record of this code's own schema has none, as a new one has none.
 */
function readRecord(document: unknown, schema: number, what: string): GoalRecord {
  return inMemory(parseVersionedItem(GoalRecordSchema, "goal", document, schema, what), schema);
}

function inMemory(record: GoalRecord, schema: number): GoalRecord {
  const { schema: _stored, ...rest } = record;
  return schema === RECORD_SCHEMA ? rest : { ...rest, schema };
}

/**
 * The version, record and outbox of a goal item, compressed or (written before) plain, and the
 * record schema it is stored in (its SCHEMA_ATTRIBUTE; items written before schemas have none: 1).
 */
function storedGoalState(
  item: Record<string, unknown>,
): z.infer<typeof GoalStateSchema> & { version: number; schema: number } {
  // Named by its key, and checked against the one format it claims, so an error names the field.
  const where = `goal item ${String(item[PK] ?? "(no key)")}`;
  // Read before anything else: an item of a newer schema is refused before it is even decompressed.
  const schema = storedSchemaOf(item[SCHEMA_ATTRIBUTE], where);
  if (schema > RECORD_SCHEMA) throw new RecordSchemaTooNewError("goal", schema, where);
  if (!("state" in item)) return { ...parseStoredItem(PlainGoalItemSchema, item, where), schema };
  const stored = parseStoredItem(CompressedGoalItemSchema, item, where);
  const decoded = stateOf(stored.state, schema, `${where}: state`);
  return { ...parseStoredItem(GoalStateSchema, decoded, `${where} state`), version: stored.version, schema };
}

/** How often a decision is taken again because a new wait stored its token in between. */
const MAX_TOKEN_RACES = 3;

function approvalItem(approval: Approval, ttlSeconds: number) {
  return {
    ...approvalKey(approval.approvalId),
    ...approvalIndexKeys(approval),
    tenantId: approval.tenantId,
    goalId: approval.goalId,
    status: approval.status,
    approval,
    [TTL]: ttlSeconds,
  };
}

/** A checkpoint item's checkpoint, migrated forward from its schema (or RecordSchemaTooNewError). */
export function readCheckpoint(item: Record<string, unknown>): ModelCheckpoint {
  return parseVersionedItem(
    ModelCheckpointSchema,
    "checkpoint",
    item.checkpoint,
    item[SCHEMA_ATTRIBUTE],
    "model checkpoint",
  );
}

/** Checks a record before it is written. */
function parseRecord(record: GoalRecord): GoalRecord {
  return parseOrThrow(GoalRecordSchema, toDocument(record), "goal record");
}

function pageSize(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw invalidField("limit", `must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  return limit;
}

function staleWrite(goalId: string, expected: number, actual: number): ConcurrentModificationError {
  return new ConcurrentModificationError(`Goal ${goalId} is at version ${actual}, not ${expected}`);
}

function alreadyDecided(approvalId: string, status: string, cause?: unknown): GoalLoopsError {
  return new ApprovalAlreadyDecidedError(`Approval ${approvalId} is already ${status}`, { cause });
}
