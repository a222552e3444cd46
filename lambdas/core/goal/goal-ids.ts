import { createHash } from "node:crypto";
import * as z from "../zod";

/**
 * The ids the system issues, and their shapes. Every door checks an id it is given against these
 * before it looks anything up, so an id the system could never have issued (too long for a
 * DynamoDB key, a key separator, a path trick) is refused as bad input and never reaches a key.
 */

/** `g-` and 26 lower-case Crockford base32 characters (128 bits), like a lower-case ULID. */
export const GOAL_ID_PATTERN = /^g-[0-9a-hjkmnp-tv-z]{26}$/;

/** `ap-` and 32 lower-case hex digits (128 random bits): a task token's stand-in outside AWS. */
export const APPROVAL_ID_PATTERN = /^ap-[0-9a-f]{32}$/;

/** `rev-` and 24 lower-case hex digits (96 random bits). */
export const REVISION_ID_PATTERN = /^rev-[0-9a-f]{24}$/;

export const GoalIdSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .string()
    .check(z.regex(GOAL_ID_PATTERN, "must be a goal id: 'g-' and 26 lower-case Crockford base32 characters")),
);

export const ApprovalIdSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .string()
    .check(z.regex(APPROVAL_ID_PATTERN, "must be an approval id: 'ap-' and 32 lower-case hex digits")),
);

export const RevisionIdSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .string()
    .check(z.regex(REVISION_ID_PATTERN, "must be a revision id: 'rev-' and 24 lower-case hex digits")),
);

/**
 * A run id: `r1`, `r2`, … as runs are numbered (`nextRunId`); the first run of an older goal may
 * carry another short id, so any 1 to 40 letters, digits, `_` or `-` are accepted.
 */
export const RunIdSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.string().check(z.regex(/^[A-Za-z0-9_-]{1,40}$/, "must be a run id such as r1")),
);

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";
const ID_BYTES = 16;
const APPROVAL_ID_BYTES = 16;
const REVISION_ID_BYTES = 12;

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

/** Formats 16 bytes as an approval id. Callers pass crypto-random bytes. */
export function approvalIdFromBytes(bytes: Uint8Array): string {
  return `ap-${hexOf(bytes, APPROVAL_ID_BYTES, "an approval id")}`;
}

/** Formats 12 bytes as a revision id. Callers pass crypto-random bytes. */
export function revisionIdFromBytes(bytes: Uint8Array): string {
  return `rev-${hexOf(bytes, REVISION_ID_BYTES, "a revision id")}`;
}

function hexOf(bytes: Uint8Array, length: number, what: string): string {
  if (bytes.length !== length) throw new RangeError(`${what} needs ${length} bytes, got ${bytes.length}`);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
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
