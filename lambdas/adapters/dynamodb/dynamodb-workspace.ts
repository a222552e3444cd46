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

/** Files whose item a workspace remembers, and version archives it keeps started ahead of a write. */
const KNOWN_FILES = 16;
/** A file item larger than this (its content and the one it replaced) is not remembered. */
const KNOWN_FILE_MAX_BYTES = INLINE_ONLY_FILE_MAX_BYTES;

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
 *
 * The order of a write is what makes it crash-safe: the replaced version's item first (immutable,
 * keyed by its version: a repeat stores the same thing), the file item last (the pointer, moved under
 * its condition). A crash between leaves an archive nobody needs yet, never a file whose predecessor
 * is lost.
 *
 * A workspace remembers the item it last read or wrote of each file (the step's verify read the file
 * a tool then writes): a write starts from it instead of reading again, its conditional put being the
 * check (a stale item fails it, and the write reads again). Only a read answers that a write changes
 * nothing or that a file is gone. `stageWrite` archives the version a write will replace ahead of it,
 * while the step commits to running the tool.
 */
export class DynamoDbWorkspace implements Workspace {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly now: () => Date;
  private readonly maxFileBytes: number;
  /** The file items this workspace last read or wrote (null: no item), least recently used first. */
  private readonly known = new Map<string, StoredFile | null>();
  /** Archives of replaced versions started by `stageWrite`: whether each was stored. */
  private readonly staged = new Map<string, Promise<boolean>>();

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
      const stored = await this.itemToReplace(goalId, path, sha256, attempt === 1);
      const current = stored?.deleted ? undefined : stored;
      // A retried act step writes the same content again: keep the version and the content to restore.
      if (current?.sha256 === sha256) return { file: withoutTombstone(current), changed: false };
      if (stored) await this.archiveOnce(stored);
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

  async stageWrite(input: { goalId: string; path: string; content: string }): Promise<void> {
    try {
      const { goalId, path, content } = parseOrThrow(
        z.omit(WriteInputSchema, { writtenBy: true }),
        toDocument(input),
        "workspace write",
      );
      const sha256 = createHash("sha256").update(content, "utf8").digest("hex");
      const stored = await this.itemToReplace(goalId, path, sha256, true);
      // Nothing replaced (a new file), or nothing changed (the write will answer so): nothing to keep.
      if (stored === undefined || (!stored.deleted && stored.sha256 === sha256)) return;
      const key = versionKeyOf(stored);
      if (this.staged.has(key)) return;
      const archived = this.archive(stored).then(
        () => true,
        () => false,
      );
      remember(this.staged, key, archived);
      await archived;
    } catch {
      // Bad input or a store error: the write itself reports it, or archives as it always did.
    }
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
    const stored = item && parseStoredItem(StoredFileSchema, item, "workspace file");
    this.noteItem(goalId, path, stored);
    return stored;
  }

  /**
   * The item a write of content `sha256` replaces: the one remembered when `mayRemember` (the
   * write's conditional put checks it), read otherwise, and read when the remembered item already
   * holds that content: only the store answers that a write changes nothing.
   */
  private async itemToReplace(
    goalId: string,
    path: string,
    sha256: string,
    mayRemember: boolean,
  ): Promise<StoredFile | undefined> {
    const key = fileKeyOf(goalId, path);
    const known = mayRemember ? this.known.get(key) : undefined;
    if (known === undefined || (known !== null && !known.deleted && known.sha256 === sha256)) {
      return this.readItem(goalId, path);
    }
    return known ?? undefined;
  }

  /** Remembers (or forgets, `undefined` after a failed put) the file item as this workspace saw it. */
  private noteItem(goalId: string, path: string, item: StoredFile | undefined | "unknown"): void {
    const key = fileKeyOf(goalId, path);
    const tooLarge =
      item !== undefined &&
      item !== "unknown" &&
      item.size + (item.previous?.content.length ?? 0) > KNOWN_FILE_MAX_BYTES;
    if (item === "unknown" || tooLarge) this.known.delete(key);
    else remember(this.known, key, item ?? null);
  }

  /** Archives `stored`'s version unless `stageWrite` stored it already. */
  private async archiveOnce(stored: StoredFile): Promise<void> {
    const key = versionKeyOf(stored);
    const staged = this.staged.get(key);
    this.staged.delete(key);
    if (staged === undefined || !(await staged)) await this.archive(stored);
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
      this.noteItem(file.goalId, file.path, file);
      return true;
    } catch (error) {
      this.noteItem(file.goalId, file.path, "unknown");
      if (isConditionalCheckFailed(error)) return false;
      throw toStoreError(error, "writeFile");
    }
  }
}

function fileKeyOf(goalId: string, path: string): string {
  return JSON.stringify([goalId, path]);
}

function versionKeyOf(stored: StoredFile): string {
  return JSON.stringify([stored.goalId, stored.path, stored.version]);
}

/** Sets `key` as the most recently used entry, dropping the least recently used past KNOWN_FILES. */
function remember<V>(entries: Map<string, V>, key: string, value: V): void {
  entries.delete(key);
  entries.set(key, value);
  if (entries.size > KNOWN_FILES) {
    const [oldest] = entries.keys();
    if (oldest !== undefined) entries.delete(oldest);
  }
}
