import type { JsonObject, JsonValue } from "./cloud-assembly-model";

export const isJsonObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Parses JSON text into a JsonValue (JSON.parse can only produce one). */
export function parseJson(text: string): JsonValue {
  return JSON.parse(text);
}
