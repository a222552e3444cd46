import { GoalLoopsError } from "./errors";
import { type StoredKind, schemaMigrations } from "./record-migrations";

export type { StoredKind } from "./record-migrations";

/**
 * The shape of the stored items this code reads and writes: the goal record, its step records, its
 * model checkpoints and its step states (a step state's `format`). Raised by one whenever a change
 * to one of them would make older code misread it; every raise comes with a migration from the
 * shape before it (record-migrations.ts) and a fixture of the shape before it
 * (test/unit/goal/record-schema.test.ts reads every released shape with today's code).
 *
 * - 1: everything written before items carried a schema (goal-loops 0.1.0 before issue 35).
 * - 2: items carry `schema` (a step state its `format`); the goal record says which deployed
 *   version its goal runs on (`runsOn`) and which shape its goal is stored in (`schema`).
 * - 3: the documents are the same; the items hold them encoded (deflated against a preset
 *   dictionary, one Binary attribute: adapters/dynamodb/encoding/document-codec.ts), step records,
 *   checkpoints and events too: a fraction of the bytes DynamoDB bills each write of. Code of
 *   schema 2 would misread such an item, so it must refuse it instead (RecordSchemaTooNew).
 */
export const RECORD_SCHEMA = 3;

/** The oldest shape this code still reads (and can write, for a goal whose version reads only it). */
export const OLDEST_RECORD_SCHEMA = 1;

/**
 * A stored item was written by a newer goal-loops than this one: its shape may mean something this
 * code does not know, so nothing of it is read or guessed, and nothing is written on its account.
 * Stable name: a step that stops on it fails (the goal's version cannot run it); the API answers 409.
 */
export class RecordSchemaTooNewError extends GoalLoopsError {
  override readonly name = "RecordSchemaTooNew";
  readonly kind: StoredKind;
  readonly schema: number;

  constructor(kind: StoredKind, schema: number, what: string) {
    super(
      `${what} is stored in record schema ${schema}, newer than this goal-loops reads (${RECORD_SCHEMA}): it was written by a later version; nothing was read or written`,
    );
    this.kind = kind;
    this.schema = schema;
  }
}

/** A stored schema number that is no schema (a corrupt or foreign item). */
export class RecordSchemaInvalidError extends GoalLoopsError {
  override readonly name = "RecordSchemaInvalid";
}

/** The schema an item was stored in: its `schema` (a step state's `format`), absent before schema 2. */
export function storedSchemaOf(stored: unknown, what: string): number {
  if (stored === undefined || stored === null) return OLDEST_RECORD_SCHEMA;
  if (typeof stored !== "number" || !Number.isInteger(stored) || stored < OLDEST_RECORD_SCHEMA) {
    throw new RecordSchemaInvalidError(`${what} has no valid record schema: ${JSON.stringify(stored)}`);
  }
  return stored;
}

/**
 * The schema to write an item of a goal in: `schema`, the goal record's (absent: RECORD_SCHEMA, this
 * code's). A goal stored in an older schema has its step records, checkpoints and step states written
 * in that schema too, so the code of the version it runs on reads them. RecordSchemaTooNewError for a
 * schema newer than this code writes, RecordSchemaInvalidError for one that is no schema.
 */
export function writableSchema(kind: StoredKind, schema: number | undefined, what: string): number {
  if (schema === undefined) return RECORD_SCHEMA;
  if (!Number.isInteger(schema) || schema < OLDEST_RECORD_SCHEMA) {
    throw new RecordSchemaInvalidError(
      `${what} cannot be written in record schema ${JSON.stringify(schema)}`,
    );
  }
  if (schema > RECORD_SCHEMA) throw new RecordSchemaTooNewError(kind, schema, what);
  return schema;
}

/**
 * A stored document in this code's shape: migrated forward one schema at a time from `schema`, or
 * RecordSchemaTooNewError when a newer goal-loops wrote it (checked before anything else is read).
 * The result is still unchecked JSON: the caller parses it with the kind's zod schema.
 */
export function upgradeStored(kind: StoredKind, document: unknown, schema: number, what: string): unknown {
  if (schema > RECORD_SCHEMA) throw new RecordSchemaTooNewError(kind, schema, what);
  let current = document;
  for (let from = schema; from < RECORD_SCHEMA; from += 1) {
    current = migrationFrom(kind, from).up(current, schema);
  }
  return current;
}

/**
 * A document of this code's shape, written back in the older shape `schema` (the shape its goal's
 * version reads): one schema at a time, each migration's `down`. What the older shape has no room for
 * is left out; that shape's code never knew it.
 */
export function downgradeStored(kind: StoredKind, document: unknown, schema: number): unknown {
  if (schema > RECORD_SCHEMA) throw new RecordSchemaTooNewError(kind, schema, `a ${kind} to write`);
  let current = document;
  for (let to = RECORD_SCHEMA - 1; to >= schema; to -= 1) {
    current = migrationFrom(kind, to).down(current);
  }
  return current;
}

function migrationFrom(kind: StoredKind, from: number) {
  const migration = schemaMigrations(kind)[from];
  if (migration === undefined) {
    // A bug of this code: RECORD_SCHEMA was raised without a migration from the shape before it.
    throw new RecordSchemaInvalidError(`no migration of ${kind} items from record schema ${from}`);
  }
  return migration;
}
