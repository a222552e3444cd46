import { GoalLoopsError } from "../goal/errors";
import type { GoalEvent, NewGoalEvent } from "../goal/goal-event";
import { GatedCallSchema, type GoalRecord, type GoalStatus } from "../goal/goal-record";
import { ModelRoleSchema } from "../models/model-roles";
import * as z from "../zod";
import { APPROVAL_STATUSES } from "./approval-statuses";
import { ModelTurnSchema, TurnConversationSchema } from "./model-client";

/** A goal record as stored: the record plus the optimistic-locking version the store keeps. */
export interface VersionedGoal {
  readonly record: GoalRecord;
  /** Incremented by every successful write; a write must name the version it read. */
  readonly version: number;
}

export { APPROVAL_STATUSES };

/** A pending or decided approval, addressable by a random `approvalId`. */
export const ApprovalSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    approvalId: z.string(),
    goalId: z.string(),
    tenantId: z.string(),
    runId: z.string(),
    status: z.enum(APPROVAL_STATUSES),
    /** What exactly is being approved (tool name and input hash, plan id …): the approval binds to it. */
    action: z.object({
      kind: z.string(),
      summary: z.string(),
      fingerprint: z.string(),
      /** A tool gate's calls in full: exactly what approving lets run. */
      calls: z.optional(z.array(GatedCallSchema).check(z.maxLength(50))),
    }),
    /** The goal revision the request was made against. */
    revision: z.number().check(z.int(), z.gte(1)),
    /** Step Functions task token. Stored only here, never returned by the API or put in any message. */
    taskToken: z.string().check(z.maxLength(2048)),
    requestedAt: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
    decision: z.optional(
      z.object({
        decision: z.enum(["approve", "reject"]),
        decidedBy: z.string(),
        comment: z.optional(z.string().check(z.maxLength(2000))),
        decidedAt: z.iso.datetime(),
      }),
    ),
  }),
);
export type Approval = z.infer<typeof ApprovalSchema>;
export type ApprovalStatus = Approval["status"];

/** Identifies one model call: a retried, redriven or restarted step finds its checkpoint here. */
export const CheckpointKeySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    goalId: z.string(),
    runId: z.string(),
    iteration: z.number().check(z.int(), z.gte(0)),
    role: ModelRoleSchema,
    /** Tells apart several calls of one role in one step (one judge call per model_judge check). */
    ordinal: z._default(z.number().check(z.int(), z.gte(0)), 0),
  }),
);
export type CheckpointKey = z.infer<typeof CheckpointKeySchema>;

export const ModelCheckpointSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    key: CheckpointKeySchema,
    /** The role's call number for this goal (fixtures and `requestMetadata.call`). */
    call: z.number().check(z.int(), z.gte(0)),
    turn: ModelTurnSchema,
    /** The conversation the call was made in, for a role whose later prompts show the turn again. */
    conversation: z.optional(TurnConversationSchema),
    costUsd: z.number().check(z.gte(0)),
    createdAt: z.iso.datetime(),
  }),
);
export type ModelCheckpoint = z.infer<typeof ModelCheckpointSchema>;

/** What `findCheckpoint` found: the stored call, or the number the next call of the role gets. */
export type CheckpointLookup =
  | { readonly checkpoint: ModelCheckpoint }
  | { readonly checkpoint: undefined; readonly calls: number };

/** How `commit` treats its events once the goal item is written. */
export interface CommitOptions {
  /**
   * Answer as soon as the goal item is written and put the event items in the background (they
   * are committed already, in the item's outbox), for a step that goes on working: its next commit
   * waits for them, as the outbox rule wants, and it awaits `settled()` before it answers.
   * @default false - the event items are written before `commit` answers
   */
  readonly eventsInBackground?: boolean;
}

export interface Page<T> {
  readonly items: readonly T[];
  /** Opaque cursor for the next page; absent on the last page. */
  readonly cursor?: string;
}

/**
 * The goal store port. One DynamoDB table behind it in AWS and locally; the contract test suite
 * runs the same cases against every backend. No operation uses DynamoDB transactions.
 */
export interface GoalStore {
  /** Stores a new goal at version 1 with its first events. Throws GoalAlreadyExistsError. */
  createGoal(record: GoalRecord, events: readonly NewGoalEvent[]): Promise<VersionedGoal>;
  getGoal(goalId: string): Promise<VersionedGoal | undefined>;
  /**
   * The record of the goal's version this store last read or wrote, without a request; undefined
   * when it knows none. Possibly stale (another writer may have moved the goal on): a guess a step
   * starts reads from beside its goal read, and checks against the goal once read. A warm Lambda
   * environment keeps it between invocations.
   */
  lastKnown(goalId: string): GoalRecord | undefined;
  /**
   * Writes `record` if the stored version is still `expectedVersion`, appending `events` with the
   * next gap-free sequence numbers. A stale write throws ConcurrentModificationError and changes nothing.
   */
  commit(
    record: GoalRecord,
    expectedVersion: number,
    events: readonly NewGoalEvent[],
    options?: CommitOptions,
  ): Promise<VersionedGoal>;
  /**
   * Resolves once every event write this store left in the background (CommitOptions) is done, for
   * whichever goal: a store serves one step invocation at a time in Lambda.
   */
  settled(): Promise<void>;
  listGoals(query: {
    tenantId: string;
    status?: GoalStatus;
    limit?: number;
    cursor?: string;
  }): Promise<Page<GoalRecord>>;
  /**
   * How many of the tenant's goals have `status` now (GET /tenants/me's running goals): a count of
   * the status index, no goal read.
   */
  countGoals(query: { tenantId: string; status: GoalStatus }): Promise<number>;
  /** Events with `seq > after`, oldest first; `nextSeq` is what to pass as `after` next time. */
  listEvents(
    goalId: string,
    query: { after?: number; limit?: number },
  ): Promise<{ items: readonly GoalEvent[]; nextSeq: number }>;

  /** Stores a new pending approval. Throws ApprovalAlreadyExistsError. */
  putApproval(approval: Approval): Promise<void>;
  getApproval(approvalId: string): Promise<Approval | undefined>;
  /** Decides a pending approval exactly once; a second decision throws ApprovalAlreadyDecidedError. */
  decideApproval(
    approvalId: string,
    outcome: { status: Exclude<ApprovalStatus, "pending">; decision?: Approval["decision"] },
  ): Promise<Approval>;
  /**
   * Hands an approval the task token of a new wait (a re-attached run, a retried request): the old
   * token is dead. Only the token changes: a decision taken meanwhile stays, and is delivered to the
   * new wait. Throws ApprovalAlreadyDecidedError for an approval nobody can decide any more
   * (expired, superseded). A decision and a replacement never undo each other.
   */
  replaceApprovalToken(approvalId: string, taskToken: string): Promise<Approval>;
  listApprovals(query: {
    tenantId: string;
    status: ApprovalStatus;
    limit?: number;
  }): Promise<readonly Approval[]>;

  /**
   * Stores a model call's result; the first writer wins and a later put returns the stored one.
   * `schema`: the record schema the call's goal is stored in (its record's `schema`; absent: this
   * code's RECORD_SCHEMA). The checkpoint is written in that shape, as that schema's code wrote it,
   * because the goal's own version, possibly older than this code (a rollback), reads its checkpoints
   * (a retried step reuses them, a fork copies them). A schema newer than this code's is refused
   * (RecordSchemaTooNewError), one that is no schema too.
   */
  putCheckpoint(checkpoint: ModelCheckpoint, schema?: number): Promise<ModelCheckpoint>;
  getCheckpoint(key: z.input<typeof CheckpointKeySchema>): Promise<ModelCheckpoint | undefined>;
  /**
   * The checkpoint under `key`, or, when there is none, how many calls of the key's role the goal has
   * checkpointed so far (the next call's number). One small read when the run has an earlier call of
   * the role (its number + 1); the role's first call in a run counts the goal's calls of that role.
   */
  findCheckpoint(key: z.input<typeof CheckpointKeySchema>): Promise<CheckpointLookup>;
  /** The checkpoint of `role` under `runId` with the highest iteration (then ordinal), if any. */
  latestCheckpoint(
    goalId: string,
    role: CheckpointKey["role"],
    runId: string,
  ): Promise<ModelCheckpoint | undefined>;

  /**
   * Records that step `step` observed `fingerprints` and answers which of them an earlier step saw
   * first. Each fingerprint is a small immutable item tagged with the first step that saw it (the
   * first writer wins), outside the goal item, so the goal item does not grow with the steps. A
   * retried verify of the same step gets the same answer: its own fingerprints still count as new.
   */
  seenBefore(goalId: string, step: number, fingerprints: readonly string[]): Promise<readonly string[]>;
}

export class GoalNotFoundError extends GoalLoopsError {
  override readonly name = "GoalNotFoundError";
}
export class GoalAlreadyExistsError extends GoalLoopsError {
  override readonly name = "GoalAlreadyExistsError";
}
/** Another writer changed the goal since it was read. Re-read and re-apply; nothing was written. */
export class ConcurrentModificationError extends GoalLoopsError {
  override readonly name = "ConcurrentModificationError";
  override readonly retryable = true;
}
export class ApprovalNotFoundError extends GoalLoopsError {
  override readonly name = "ApprovalNotFoundError";
}
export class ApprovalAlreadyExistsError extends GoalLoopsError {
  override readonly name = "ApprovalAlreadyExistsError";
}
export class ApprovalAlreadyDecidedError extends GoalLoopsError {
  override readonly name = "ApprovalAlreadyDecidedError";
}
