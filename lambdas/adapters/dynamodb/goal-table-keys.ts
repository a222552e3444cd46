import { createHash } from "node:crypto";
import { ValidationError } from "../../core/goal/errors";
import type { GoalRecord, GoalStatus } from "../../core/goal/goal-record";
import type { Approval, ApprovalStatus, CheckpointKey } from "../../core/ports/goal-store";
import * as z from "../../core/zod";
import { PARTITION_PREFIXES, TABLE_DESIGN } from "./table-design";

/** Key builders for the single-table design in table-design.ts: the only place key strings are spelled. */

const PK = TABLE_DESIGN.partitionKey;
const SK = TABLE_DESIGN.sortKey;
const GSI_PK = TABLE_DESIGN.statusIndex.partitionKey;
const GSI_SK = TABLE_DESIGN.statusIndex.sortKey;

/** Attributes the store itself writes on every item; event fields with these names are refused. */
export const RESERVED_ATTRIBUTES: ReadonlySet<string> = new Set([
  PK,
  SK,
  GSI_PK,
  GSI_SK,
  TABLE_DESIGN.ttlAttribute,
  TABLE_DESIGN.offloadAttribute,
]);

const EVENT_SEQ_DIGITS = 12;
const CHECKPOINT_ITERATION_DIGITS = 8;
const CHECKPOINT_ORDINAL_DIGITS = 3;
const STEP_DIGITS = 8;
/** DynamoDB's limit on a sort key, in UTF-8 bytes. */
const MAX_SORT_KEY_BYTES = 1024;

function padded(value: number, digits: number, field: string): string {
  const text = String(value);
  // A longer number would sort before a shorter one and break the key order.
  if (!Number.isInteger(value) || value < 0 || text.length > digits) {
    throw invalidField(field, `must be an integer from 0 to ${"9".repeat(digits)}`);
  }
  return text.padStart(digits, "0");
}

export function invalidField(path: string, message: string): ValidationError {
  return new ValidationError(`Invalid ${path}: ${message}`, [{ path, message }]);
}

export function goalKey(goalId: string) {
  return { [PK]: `${PARTITION_PREFIXES.goal}${goalId}`, [SK]: "GOAL" };
}

export function eventSortKey(seq: number): string {
  return `EVT#${padded(seq, EVENT_SEQ_DIGITS, "seq")}`;
}

export function eventKey(goalId: string, seq: number) {
  return { [PK]: goalKey(goalId)[PK], [SK]: eventSortKey(seq) };
}

export function goalIndexKeys(record: GoalRecord) {
  return {
    [GSI_PK]: goalsPartition(record.tenantId),
    [GSI_SK]: `${statusPrefix(record.status)}${record.createdAt}#${record.goalId}`,
  };
}

export function goalsPartition(tenantId: string): string {
  return `TENANT#${tenantId}#GOALS`;
}

/** Sort key prefix of every goal or approval in the status index, whatever its status. */
export const ANY_STATUS_PREFIX = "STATUS#";

export function statusPrefix(status: GoalStatus | ApprovalStatus): string {
  return `${ANY_STATUS_PREFIX}${status}#`;
}

export function approvalKey(approvalId: string) {
  return { [PK]: `${PARTITION_PREFIXES.approval}${approvalId}`, [SK]: "APPROVAL" };
}

export function approvalIndexKeys(approval: Approval) {
  return {
    [GSI_PK]: approvalsPartition(approval.tenantId),
    [GSI_SK]: `${statusPrefix(approval.status)}${approval.requestedAt}#${approval.approvalId}`,
  };
}

export function approvalsPartition(tenantId: string): string {
  return `TENANT#${tenantId}#APPROVALS`;
}

export function checkpointRolePrefix(role: CheckpointKey["role"]): string {
  return `${CHECKPOINT_PREFIX}${role}#`;
}

/** The sort-key prefix of a role's checkpoints in one run (zero-padded after it: the last key is the newest). */
export function checkpointRunPrefix(role: CheckpointKey["role"], runId: string): string {
  // A '#' in the run id could make two different keys spell the same sort key.
  if (runId.includes("#")) throw invalidField("runId", "must not contain '#'");
  return `${checkpointRolePrefix(role)}${runId}#`;
}

export function checkpointKey(key: CheckpointKey) {
  const iteration = padded(key.iteration, CHECKPOINT_ITERATION_DIGITS, "iteration");
  const ordinal = padded(key.ordinal, CHECKPOINT_ORDINAL_DIGITS, "ordinal");
  return {
    [PK]: goalKey(key.goalId)[PK],
    [SK]: `${checkpointRunPrefix(key.role, key.runId)}${iteration}#${ordinal}`,
  };
}

/** Sort keys that end in a caller's free text: the text is last, so no '#' in it can make two keys collide. */
function textSortKey(prefix: string, text: string, field: string): string {
  const sortKey = `${prefix}${text}`;
  if (Buffer.byteLength(sortKey, "utf8") > MAX_SORT_KEY_BYTES) {
    throw invalidField(field, `is longer than a key can hold (${MAX_SORT_KEY_BYTES} bytes)`);
  }
  return sortKey;
}

/** Sort key prefix of every file in a goal's workspace. */
export const WORKSPACE_FILE_PREFIX = "WS#";

export function workspaceFileKey(goalId: string, path: string) {
  return { [PK]: goalKey(goalId)[PK], [SK]: textSortKey(WORKSPACE_FILE_PREFIX, path, "path") };
}

/** Sort key prefix of the versions of workspace files a write or a deletion replaced. */
export const WORKSPACE_VERSION_PREFIX = "WSV#";
const VERSION_DIGITS = 8;

/** One replaced version of a file: the version number first, the path (free text) last. */
export function workspaceVersionKey(goalId: string, path: string, version: number) {
  const prefix = `${WORKSPACE_VERSION_PREFIX}${padded(version, VERSION_DIGITS, "version")}#`;
  return { [PK]: goalKey(goalId)[PK], [SK]: textSortKey(prefix, path, "path") };
}

/** Sort key prefix of every step record of a goal. */
export const STEP_PREFIX = "STEP#";

export function stepKey(goalId: string, step: number) {
  return { [PK]: goalKey(goalId)[PK], [SK]: `${STEP_PREFIX}${padded(step, STEP_DIGITS, "step")}` };
}

/** Sort key prefix of every step state of a goal (where it stood after each counted step). */
export const STEP_STATE_PREFIX = "STATE#";

export function stepStateKey(goalId: string, step: number) {
  return { [PK]: goalKey(goalId)[PK], [SK]: `${STEP_STATE_PREFIX}${padded(step, STEP_DIGITS, "step")}` };
}

/** Sort key prefix of every checkpoint of a goal, whatever its role. */
export const CHECKPOINT_PREFIX = "CKPT#";

/** Sort key prefix of every fingerprint item of a goal (what its verify cycles have seen). */
export const FINGERPRINT_PREFIX = "FP#";

/** Keyed by the fingerprint's SHA-256 (32 hex digits): fixed size, whatever the artifact path's length. */
export function fingerprintKey(goalId: string, fingerprint: string) {
  const digest = createHash("sha256").update(fingerprint, "utf8").digest("hex").slice(0, 32);
  return { [PK]: goalKey(goalId)[PK], [SK]: `${FINGERPRINT_PREFIX}${digest}` };
}

/** Sort key prefix of every outbox message of a goal. */
export const OUTBOX_PREFIX = "OUTBOX#";

/** Keyed by messageId alone (not by time) so a retried put finds the first one: first writer wins. */
export function outboxMessageKey(goalId: string, messageId: string) {
  return { [PK]: goalKey(goalId)[PK], [SK]: textSortKey(OUTBOX_PREFIX, messageId, "messageId") };
}

/** A LastEvaluatedKey of the status index: the base table key plus the index key. */
const IndexCursorSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    [PK]: z.string(),
    [SK]: z.string(),
    [GSI_PK]: z.string(),
    [GSI_SK]: z.string(),
  }),
);
export type IndexCursor = z.infer<typeof IndexCursorSchema>;

/** An opaque page cursor: the LastEvaluatedKey as base64url JSON. */
export function encodeCursor(lastEvaluatedKey: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(lastEvaluatedKey), "utf8").toString("base64url");
}

/**
 * Decodes a cursor and checks it belongs to the same listing, so a cursor from one tenant's
 * listing can never start another tenant's query. Anything else is a ValidationError on `cursor`.
 */
export function decodeCursor(
  cursor: string,
  expected: { partition: string; sortKeyPrefix: string },
): IndexCursor {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalidField("cursor", "is not a cursor this listing returned");
  }
  const parsed = IndexCursorSchema.safeParse(decoded);
  if (
    !parsed.success ||
    parsed.data[GSI_PK] !== expected.partition ||
    !parsed.data[GSI_SK].startsWith(expected.sortKeyPrefix)
  ) {
    throw invalidField("cursor", "is not a cursor this listing returned");
  }
  return parsed.data;
}
