import { createHash } from "node:crypto";
import { type DynamoDBDocumentClient, PutCommand, type PutCommandInput } from "@aws-sdk/lib-dynamodb";
import { WorkspacePathSchema } from "../../core/goal/goal-spec";
import { parseOrThrow } from "../../core/goal/validation";
import { ConcurrentModificationError } from "../../core/ports/goal-store";
import {
  type Workspace,
  type WorkspaceEntry,
  type WorkspaceFile,
  WorkspaceFileSchema,
  WorkspaceFileTooLargeError,
  type WorkspaceVersion,
  type WorkspaceWriteResult,
  WriterSchema,
} from "../../core/ports/workspace";
import * as z from "../../core/zod";
import { INLINE_ONLY_FILE_MAX_BYTES } from "../shared/payload-settings";
import { isConditionalCheckFailed, toStoreError } from "../shared/store-errors";
import { getItemConsistently } from "./dynamodb-get-item";
import { queryGoalPartition } from "./dynamodb-goal-partition";
import { parseStoredItem, toDocument } from "./dynamodb-items";
import { WORKSPACE_FILE_PREFIX, workspaceFileKey, workspaceVersionKey } from "./goal-table-keys";
import { TABLE_DESIGN } from "./table-design";

/** The SHA-256 of no content: a deletion's tombstone holds none. */
const EMPTY_SHA256 = createHash("sha256").update("", "utf8").digest("hex");

/** The file as the port shows it: a live item without the tombstone flag. */
function withoutTombstone({ deleted: _deleted, ...file }: StoredFile): WorkspaceFile {
  return file;
}

/** Read-modify-write rounds before a write under constant contention gives up. */
const WRITE_ATTEMPTS = 5;

const PK = TABLE_DESIGN.partitionKey;

const WriteInputSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    goalId: z.string().check(z.minLength(1)),
    path: WorkspacePathSchema,
    content: z.string(),
    writtenBy: WriterSchema,
  }),
);

/** A file item: a live file, or the tombstone a deletion leaves (its version count goes on). */
const StoredFileSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.extend(WorkspaceFileSchema, { deleted: z.optional(z.literal(true)) }),
);
type StoredFile = z.infer<typeof StoredFileSchema>;

const WorkspaceEntrySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.extend(
    z.pick(WorkspaceFileSchema, {
      path: true,
      sha256: true,
      size: true,
      version: true,
      updatedAt: true,
    }),
    { deleted: z.optional(z.literal(true)) },
  ),
);
/** Read on first use: reading the schema's shape at import would build it in every cold start. */
const entryAttributes = () => Object.keys(WorkspaceEntrySchema.shape);

/** What one replaced version held: kept so a compensation can restore any version, not just the last. */
const ArchivedVersionSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.union([
    z.object({ deleted: z.literal(false), content: z.string(), sha256: z.string() }),
    z.object({ deleted: z.literal(true) }),
  ]),
);

export interface DynamoDbWorkspaceOptions {
  /** Created once at module scope by the handler and shared across invocations. */
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** Clock for `updatedAt`. @default () => new Date() */
  readonly now?: () => Date;
  /**
   * The largest file kept, in UTF-8 bytes. Above what one item holds (two copies, the content and
   * the one it replaced, of INLINE_ONLY_FILE_MAX_BYTES) only with a client that offloads large
   * items to the payload bucket (createDocumentClient).
   * @default INLINE_ONLY_FILE_MAX_BYTES
   */
  readonly maxFileBytes?: number;
}

/**
 * A goal's workspace as items of the goal table (sk `WS#<path>`), one item per file holding its
 * content, version and the content it replaced. A large file's contents live in the payload bucket
 * (the client's large-item offload): the item keeps path, size, sha256, version and the S3 keys. Each write is a conditional put on the version it
 * read, so two concurrent writers never lose each other's update: the loser reads again and writes
 * on top, and its `previous` is the winner's content.
 *
 * Each version a write or a deletion replaces is kept as an item of its own (sk `WSV#`), so a saga
 * undoing several writes of one file, newest first, can restore each one's predecessor. A deletion
 * leaves a tombstone: the file reads as missing, and its version count goes on.
 */
export class DynamoDbWorkspace implements Workspace {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly now: () => Date;
  private readonly maxFileBytes: number;

  constructor(options: DynamoDbWorkspaceOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.now = options.now ?? (() => new Date());
    this.maxFileBytes = options.maxFileBytes ?? INLINE_ONLY_FILE_MAX_BYTES;
  }

  async writeFile(input: Parameters<Workspace["writeFile"]>[0]): Promise<WorkspaceWriteResult> {
    const { goalId, path, content, writtenBy } = parseOrThrow(
      WriteInputSchema,
      toDocument(input),
      "workspace write",
    );
    const size = Buffer.byteLength(content, "utf8");
    if (size > this.maxFileBytes) throw new WorkspaceFileTooLargeError(path, size, this.maxFileBytes);
    const sha256 = createHash("sha256").update(content, "utf8").digest("hex");

    for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
      const stored = await this.readItem(goalId, path);
      const current = stored?.deleted ? undefined : stored;
      // A retried act step writes the same content again: keep the version and the content to restore.
      if (current?.sha256 === sha256) return { file: withoutTombstone(current), changed: false };
      if (stored) await this.archive(stored);
      const file: WorkspaceFile = {
        goalId,
        path,
        content,
        sha256,
        size,
        version: (stored?.version ?? 0) + 1,
        previous: current ? { content: current.content, sha256: current.sha256 } : null,
        writtenBy,
        updatedAt: this.now().toISOString(),
      };
      if (await this.putIfUnchanged(file, stored?.version)) return { file, changed: true };
    }
    throw new ConcurrentModificationError(
      `Workspace file '${path}' of goal ${goalId} kept changing; gave up after ${WRITE_ATTEMPTS} attempts`,
    );
  }

  async readFile(goalId: string, path: string): Promise<WorkspaceFile | undefined> {
    const stored = await this.readItem(goalId, path);
    return stored === undefined || stored.deleted ? undefined : withoutTombstone(stored);
  }

  async deleteFile(input: Parameters<Workspace["deleteFile"]>[0]): Promise<{ readonly deleted: boolean }> {
    const { goalId, path, writtenBy } = parseOrThrow(
      z.omit(WriteInputSchema, { content: true }),
      toDocument(input),
      "workspace delete",
    );
    for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
      const stored = await this.readItem(goalId, path);
      if (stored === undefined || stored.deleted) return { deleted: false };
      await this.archive(stored);
      const tombstone: StoredFile = {
        goalId,
        path,
        content: "",
        sha256: EMPTY_SHA256,
        size: 0,
        version: stored.version + 1,
        previous: { content: stored.content, sha256: stored.sha256 },
        writtenBy,
        updatedAt: this.now().toISOString(),
        deleted: true,
      };
      if (await this.putIfUnchanged(tombstone, stored.version)) return { deleted: true };
    }
    throw new ConcurrentModificationError(
      `Workspace file '${path}' of goal ${goalId} kept changing; gave up deleting after ${WRITE_ATTEMPTS} attempts`,
    );
  }

  async readVersion(goalId: string, path: string, version: number): Promise<WorkspaceVersion | undefined> {
    const stored = await this.readItem(goalId, path);
    if (stored?.version === version) {
      return stored.deleted
        ? { deleted: true }
        : { deleted: false, content: stored.content, sha256: stored.sha256 };
    }
    const item = await getItemConsistently(
      this.client,
      this.tableName,
      workspaceVersionKey(goalId, path, version),
      "readVersion",
    );
    return item && parseStoredItem(ArchivedVersionSchema, item, "workspace file version");
  }

  /** The file's item as stored, a deletion's tombstone included. */
  private async readItem(goalId: string, path: string): Promise<StoredFile | undefined> {
    const item = await getItemConsistently(
      this.client,
      this.tableName,
      workspaceFileKey(goalId, path),
      "readFile",
    );
    return item && parseStoredItem(StoredFileSchema, item, "workspace file");
  }

  /**
   * Keeps what `stored`'s version held before a write or a deletion replaces it. A version holds one
   * content for ever (the file item moves from version to version under a condition), so a repeat
   * of the put (a retried write, a racing writer) stores the same thing: the first one is kept.
   */
  private async archive(stored: StoredFile): Promise<void> {
    const version = stored.deleted
      ? { deleted: true as const }
      : { deleted: false as const, content: stored.content, sha256: stored.sha256 };
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...version, ...workspaceVersionKey(stored.goalId, stored.path, stored.version) },
          ConditionExpression: "attribute_not_exists(#pk)",
          ExpressionAttributeNames: { "#pk": PK },
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailed(error)) return;
      throw toStoreError(error, "writeFile");
    }
  }

  async listFiles(goalId: string): Promise<readonly WorkspaceEntry[]> {
    // Without the content (and the previous content) a listing stays small however large the files.
    const items = await queryGoalPartition(this.client, {
      tableName: this.tableName,
      goalId,
      prefix: WORKSPACE_FILE_PREFIX,
      attributes: entryAttributes(),
      operation: "listFiles",
    });
    const entries = items
      .map((item) => parseStoredItem(WorkspaceEntrySchema, item, "workspace entry"))
      .flatMap(({ deleted, ...entry }) => (deleted ? [] : [entry]));
    // Sorted here, by code unit, so the order is the same whatever the backend's byte order.
    return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Puts `file` if the stored version is still `expected` (absent: still no file). False if not. */
  private async putIfUnchanged(file: StoredFile, expected: number | undefined): Promise<boolean> {
    const condition: Pick<
      PutCommandInput,
      "ConditionExpression" | "ExpressionAttributeNames" | "ExpressionAttributeValues"
    > =
      expected === undefined
        ? { ConditionExpression: "attribute_not_exists(#pk)", ExpressionAttributeNames: { "#pk": PK } }
        : {
            ConditionExpression: "#version = :expected",
            ExpressionAttributeNames: { "#version": "version" },
            ExpressionAttributeValues: { ":expected": expected },
          };
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...file, ...workspaceFileKey(file.goalId, file.path) },
          ...condition,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw toStoreError(error, "writeFile");
    }
  }
}
