import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants } from "node:zlib";
import {
  downgradeStored,
  OLDEST_RECORD_SCHEMA,
  RECORD_SCHEMA,
  RecordSchemaTooNewError,
  type StoredKind,
  storedSchemaOf,
  upgradeStored,
} from "../../core/goal/record-schema";
import * as z from "../../core/zod";
import { CorruptStoreItemError } from "../shared/store-errors";
import { decodeDocument, encodeDocument } from "./encoding/document-codec";

/**
 * A JSON copy of a value about to be written. The document client refuses `undefined` (an absent
 * optional field) unless told otherwise, and the client is injected, so the store cannot rely on it.
 */
export function toDocument(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

/** Parses what was read back from the table, or throws CorruptStoreItemError: never a silent cast. */
export function parseStoredItem<S extends z.core.$ZodType>(
  schema: S,
  value: unknown,
  what: string,
): z.output<S> {
  const result = z.safeParse(schema, value);
  if (result.success) return result.data;
  const details = z.prettifyError(result.error);
  throw new CorruptStoreItemError(`Stored ${what} does not match its schema: ${details}`, {
    cause: result.error,
  });
}

/**
 * A value as brotli-compressed JSON, for an item attribute that holds a whole record: the item
 * DynamoDB stores (and bills every write of by size) is a third of the plain one.
 */
export function compressJson(value: unknown): Uint8Array {
  const json = Buffer.from(JSON.stringify(value), "utf8");
  return brotliCompressSync(json, {
    params: {
      // Quality 5: a tenth of a millisecond for a goal item; 11 (the default) takes milliseconds
      // on every commit for about 10 % fewer bytes.
      [zlibConstants.BROTLI_PARAM_QUALITY]: 5,
      [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
      [zlibConstants.BROTLI_PARAM_SIZE_HINT]: json.length,
    },
  });
}

/** What `compressJson` wrote, parsed back; CorruptStoreItemError naming `what` when it is not. */
export function decompressJson(bytes: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(brotliDecompressSync(bytes).toString("utf8"));
  } catch (error) {
    throw new CorruptStoreItemError(`Stored ${what} is not compressed JSON`, { cause: error });
  }
}

/**
 * The item attribute that says which record schema (lambdas/core/goal/record-schema.ts) an item's
 * document was written in, in the clear so it is read before anything is decompressed or parsed.
 * Items written before record schemas have none: schema 1.
 */
export const SCHEMA_ATTRIBUTE = "schema";

/** The schema attribute of an item written in `schema`; none for schema 1, as such items were written. */
export function schemaAttribute(schema: number = RECORD_SCHEMA): Record<string, number> {
  return schema > OLDEST_RECORD_SCHEMA ? { [SCHEMA_ATTRIBUTE]: schema } : {};
}

/**
 * A document read from an item, in this code's shape: RecordSchemaTooNewError when a newer
 * goal-loops wrote it (before anything is parsed), migrated forward when an older one did, then
 * checked against `schema`. `storedSchema` is the item's SCHEMA_ATTRIBUTE (absent: 1).
 */
export function parseVersionedItem<S extends z.core.$ZodType>(
  schema: S,
  kind: StoredKind,
  document: unknown,
  storedSchema: unknown,
  what: string,
): z.output<S> {
  const from = storedSchemaOf(storedSchema, what);
  // The schema first: an item of a newer one is refused before its document is even decoded.
  if (from > RECORD_SCHEMA) throw new RecordSchemaTooNewError(kind, from, what);
  return parseStoredItem(schema, upgradeStored(kind, documentOf(document, what), from, what), what);
}

/**
 * The first record schema whose items hold their document encoded (encoding/document-codec.ts): an item of
 * an older schema holds it as that schema's code wrote it (plain attributes; a goal or step state
 * brotli-compressed), and is written so again for a goal stored in that schema.
 */
export const ENCODED_DOCUMENTS_SCHEMA = 3;

/** A document as an item of `schema` holds it: encoded from ENCODED_DOCUMENTS_SCHEMA on, else as is. */
export function documentAttribute(value: unknown, schema: number = RECORD_SCHEMA): unknown {
  return schema >= ENCODED_DOCUMENTS_SCHEMA ? encodeDocument(value) : value;
}

/**
 * A document of this code's shape and the schema attribute, as an item of `schema` holds them under
 * `attribute`: written back in that schema's shape and encoding (downgradeStored, documentAttribute),
 * so the code of that schema reads it. In this code's schema, the document encoded as it is.
 */
export function versionedAttributes(
  kind: StoredKind,
  attribute: string,
  document: unknown,
  schema: number,
): Record<string, unknown> {
  return {
    [attribute]: documentAttribute(downgradeStored(kind, document, schema), schema),
    ...schemaAttribute(schema),
  };
}

/** The document an item's attribute holds: decoded when it is encoded (Binary), else as it is. */
export function documentOf(value: unknown, what: string): unknown {
  return value instanceof Uint8Array ? decodeDocument(value, what) : value;
}

/** A whole-state attribute (a goal's, a step state's) of an item of `schema`: encoded, or brotli before. */
export function stateAttribute(value: unknown, schema: number): Uint8Array {
  return schema >= ENCODED_DOCUMENTS_SCHEMA ? encodeDocument(value) : compressJson(value);
}

/** What `stateAttribute` wrote for an item of `schema`. */
export function stateOf(bytes: Uint8Array, schema: number, what: string): unknown {
  return schema >= ENCODED_DOCUMENTS_SCHEMA ? decodeDocument(bytes, what) : decompressJson(bytes, what);
}
