import * as z from "zod";
import { CorruptStoreItemError } from "../shared/store-errors";

/**
 * A JSON copy of a value about to be written. The document client refuses `undefined` (an absent
 * optional field) unless told otherwise, and the client is injected, so the store cannot rely on it.
 */
export function toDocument(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

/** Parses what was read back from the table, or throws CorruptStoreItemError: never a silent cast. */
export function parseStoredItem<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details = z.prettifyError(result.error);
  throw new CorruptStoreItemError(`Stored ${what} does not match its schema: ${details}`, {
    cause: result.error,
  });
}
