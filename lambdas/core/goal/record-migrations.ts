/**
 * The migrations between record schemas (record-schema.ts), one per kind of stored item and schema
 * step: `up` turns a document of schema `from` into one of `from + 1`, `down` the other way. They work
 * on plain JSON, before (up) or after (down) the kind's zod schema: a migration never trusts a shape.
 */

/** The kinds of stored items that carry a record schema. */
export type StoredKind = "goal" | "step" | "checkpoint" | "stepState";

export interface SchemaMigration {
  /** One schema forward; `storedSchema` is the schema the item was read in (kept on a goal record). */
  up(document: unknown, storedSchema: number): unknown;
  /** One schema back: what the older shape has no room for is left out. */
  down(document: unknown): unknown;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The same document without `keys`; anything but an object is returned as it is (its parse fails). */
function without(document: unknown, ...keys: string[]): unknown {
  if (!isObject(document)) return document;
  const copy: Json = { ...document };
  for (const key of keys) delete copy[key];
  return copy;
}

/**
 * Goal record 1 → 2: the record gains `schema` (the shape its goal is stored in, which every writer
 * keeps: a goal read from schema 1 is written back as schema 1) and `runsOn` (the deployed version the
 * goal runs on). A schema-1 goal started before versions existed: it has no `runsOn`, and each of its
 * runs starts on the live version, as every run did then.
 */
const goalRecordToSchema2: SchemaMigration = {
  up: (document, storedSchema) => (isObject(document) ? { ...document, schema: storedSchema } : document),
  down: (document) => without(document, "schema", "runsOn"),
};

/** Step records and checkpoints 1 → 2: only the item's `schema` attribute is new; the document is the same. */
const unchanged: SchemaMigration = { up: (document) => document, down: (document) => document };

/** Step state 1 → 2: its `format` follows the record schema, and the record inside it migrates with it. */
const stepStateToSchema2: SchemaMigration = {
  up: (document, storedSchema) =>
    isObject(document)
      ? { ...document, format: 2, record: goalRecordToSchema2.up(document.record, storedSchema) }
      : document,
  down: (document) =>
    isObject(document)
      ? { ...document, format: 1, record: goalRecordToSchema2.down(document.record) }
      : document,
};

/**
 * Schema 2 → 3: only the items' encoding changes (the store decodes them before any migration runs);
 * a step state's `format` follows the record schema.
 */
const stepStateFormat = (format: number): SchemaMigration => ({
  up: (document) => (isObject(document) ? { ...document, format: format + 1 } : document),
  down: (document) => (isObject(document) ? { ...document, format } : document),
});

/** By kind, the migration from each schema (index) to the next. */
const MIGRATIONS: Readonly<Record<StoredKind, Readonly<Record<number, SchemaMigration>>>> = {
  goal: { 1: goalRecordToSchema2, 2: unchanged },
  step: { 1: unchanged, 2: unchanged },
  checkpoint: { 1: unchanged, 2: unchanged },
  stepState: { 1: stepStateToSchema2, 2: stepStateFormat(2) },
};

export function schemaMigrations(kind: StoredKind): Readonly<Record<number, SchemaMigration>> {
  return MIGRATIONS[kind];
}
