import { createHash } from "node:crypto";
import type { JsonValue } from "./goal-change";

/** JSON text with object keys sorted at every level: equal values give byte-equal text. */
export function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key] ?? null)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Lower-case hex SHA-256 of a UTF-8 string, as artifact and tool-result hashes are written. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
