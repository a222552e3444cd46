/**
 * An item's size as DynamoDB counts it against its 400 KB limit, rounded up: attribute names and
 * string values in UTF-8 bytes, binary values in bytes, numbers by their digits, one byte for a
 * boolean or null, and 3 bytes plus one per element for a map or a list.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
 */
export function estimateItemBytes(item: Readonly<Record<string, unknown>>): number {
  let total = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    total += Buffer.byteLength(name, "utf8") + estimateValueBytes(value);
  }
  return total;
}

export function estimateValueBytes(value: unknown): number {
  if (typeof value === "string") return Buffer.byteLength(value, "utf8");
  if (value instanceof Uint8Array) return value.byteLength;
  // DynamoDB: (significant digits / 2) + 1, at most 21; the string form counts sign and exponent too.
  if (typeof value === "number" || typeof value === "bigint") return Math.min(21, String(value).length);
  if (value === null || typeof value === "boolean") return 1;
  if (value instanceof Set)
    return [...value].reduce((sum: number, entry) => sum + estimateValueBytes(entry), 3);
  if (Array.isArray(value))
    return value.reduce((sum: number, entry) => sum + 1 + estimateValueBytes(entry), 3);
  if (typeof value === "object") {
    let total = 3;
    for (const [name, entry] of Object.entries(value)) {
      if (entry === undefined) continue;
      total += 1 + Buffer.byteLength(name, "utf8") + estimateValueBytes(entry);
    }
    return total;
  }
  return 0;
}
