import { createHash } from "node:crypto";

/** `g-` and 26 lower-case Crockford base32 characters (128 bits), like a lower-case ULID. */
export const GOAL_ID_PATTERN = /^g-[0-9a-hjkmnp-tv-z]{26}$/;

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";
const ID_BYTES = 16;

/** Formats 16 bytes (128 bits) as a goal id. Callers pass crypto-random bytes for a new goal. */
export function goalIdFromBytes(bytes: Uint8Array): string {
  if (bytes.length !== ID_BYTES)
    throw new RangeError(`a goal id needs ${ID_BYTES} bytes, got ${bytes.length}`);
  // 128 bits read as 26 five-bit digits: two zero bits on top pad 128 up to 130.
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let digits = "";
  for (let index = 0; index < 26; index += 1) {
    digits = CROCKFORD.charAt(Number(value & 31n)) + digits;
    value >>= 5n;
  }
  return `g-${digits}`;
}

/**
 * The goal id an `Idempotency-Key` stands for: a hash of the tenant and the key, so a repeated
 * request finds the goal the first one created, and two tenants' equal keys never meet.
 */
export function goalIdForIdempotencyKey(tenantId: string, idempotencyKey: string): string {
  // NUL cannot appear in a tenant id or a header value, so ("ab", "c") and ("a", "bc") stay apart.
  const digest = createHash("sha256")
    .update(`goal-loops/idempotency-key/v1\u0000${tenantId}\u0000${idempotencyKey}`, "utf8")
    .digest();
  return goalIdFromBytes(digest.subarray(0, ID_BYTES));
}
