import { randomUUID } from "node:crypto";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoDbGoalStore } from "../../lambdas/adapters/dynamodb/dynamodb-goal-store";
import { approvalKey, goalKey } from "../../lambdas/adapters/dynamodb/goal-table-keys";
import { CorruptStoreItemError } from "../../lambdas/adapters/shared/store-errors";
import { ValidationError } from "../../lambdas/core/goal/errors";
import type { GoalRecord } from "../../lambdas/core/goal/goal-record";
import type { ModelRole } from "../../lambdas/core/models/model-roles";
import {
  ApprovalAlreadyDecidedError,
  ApprovalAlreadyExistsError,
  ApprovalNotFoundError,
  ConcurrentModificationError,
  GoalAlreadyExistsError,
  GoalNotFoundError,
  ModelCheckpointSchema,
} from "../../lambdas/core/ports/goal-store";
import {
  createFakeClockGoalTable,
  type DynamoBackend,
  documentClientFor,
  dynamoClientFor,
  type StartBackend,
} from "../support/dynamo-backends";
import { aGoalRecord } from "../support/goal-record-builder";
import { aCheckpoint, anApproval, someEvents } from "../support/goal-store-builders";
import { storedEventSeqs as storedEventSeqsIn } from "../support/stored-events";
import { within as withinMs } from "../support/within";
import { describeLoopStoreContract } from "./goal-store-extras.contract";
import { describeLargePayloadContract } from "./large-payloads.contract";

/**
 * The GoalStore contract: the same cases for every backend the DynamoDB adapter runs on. Each
 * suite gets a server (DynamoDB Local's is shared by the files of a process) and a fresh table of
 * its own; each case uses its own goal ids and tenant.
 */
export function describeGoalStoreContract(backendName: string, start: StartBackend): void {
  describe(`GoalStore contract [${backendName}]`, () => {
    const tableName = `goals-${randomUUID()}`;
    let backend: DynamoBackend | undefined;
    let client: DynamoDBClient | undefined;
    let documents: DynamoDBDocumentClient;
    let store: DynamoDbGoalStore;

    beforeAll(async () => {
      backend = await start();
      client = dynamoClientFor(backend.endpoint);
      documents = documentClientFor(client);
      await createFakeClockGoalTable(client, tableName);
      store = new DynamoDbGoalStore({ client: documents, tableName });
    });

    afterAll(async () => {
      client?.destroy();
      await backend?.stop();
    });

    /** The sequence numbers of the event items actually in the table, bypassing the store's repair. */
    function storedEventSeqs(goalId: string): Promise<number[]> {
      return storedEventSeqsIn(documents, tableName, goalId);
    }

    /** A store on a client of its own, which `intercept` adds its middleware to first. */
    function storeOnOwnClient(intercept: (client: DynamoDBClient) => void) {
      if (!backend) throw new Error("backend not started");
      const client = dynamoClientFor(backend.endpoint);
      intercept(client);
      const store = new DynamoDbGoalStore({ client: documentClientFor(client), tableName });
      return { store, destroy: () => client.destroy() };
    }

    /**
     * A store whose client fails every event-item put while `crashing` is true: the goal write
     * succeeds and the process "dies" before its events reach their own items.
     */
    function storeThatCrashesBeforeEventWrites() {
      const control = { crashing: true };
      const { store: crashingStore, destroy } = storeOnOwnClient((client) =>
        client.middlewareStack.add(
          (next) => async (args) => {
            if (control.crashing && isEventPut(args.input))
              throw new Error("injected crash before the event write");
            return next(args);
          },
          { step: "initialize", name: "injectCrashBeforeEventWrite" },
        ),
      );
      return { crashingStore, control, destroy };
    }

    /** A store on its own client that records the DynamoDB command of every request it sends. */
    function storeCountingRequests() {
      const commands: string[] = [];
      const { store: countingStore, destroy } = storeOnOwnClient((client) =>
        client.middlewareStack.add(
          (next, context) => async (args) => {
            commands.push(context.commandName ?? "?");
            return next(args);
          },
          { step: "initialize", name: "recordCommand" },
        ),
      );
      return { countingStore, commands, destroy };
    }

    /** A store whose client's next `control.unprocessed` BatchWriteItems come back all unprocessed, unsent. */
    function storeLeavingBatchesUnprocessed() {
      const control = { unprocessed: 0 };
      const { store: flakyStore, destroy } = storeOnOwnClient((client) =>
        client.middlewareStack.add(
          (next, context) => async (args) => {
            if (context.commandName !== "BatchWriteItemCommand" || control.unprocessed === 0)
              return next(args);
            // Not sent: DynamoDB answered that it wrote none of the batch.
            control.unprocessed -= 1;
            const input = args.input as { RequestItems?: Record<string, unknown[]> };
            return {
              output: { UnprocessedItems: input.RequestItems, $metadata: {} },
              response: {},
            } as Awaited<ReturnType<typeof next>>;
          },
          { step: "initialize", name: "leaveBatchUnprocessed" },
        ),
      );
      return { flakyStore, control, destroy };
    }

    /**
     * A store whose client holds every BatchWriteItem while `control.holding` until `release()`, and
     * records in `control.sentWhileHolding` the command of every request sent meanwhile.
     */
    function storeHoldingEventBatches() {
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const control = { holding: false, held: 0, sentWhileHolding: [] as string[], release };
      const { store: holdingStore, destroy } = storeOnOwnClient((client) =>
        client.middlewareStack.add(
          (next, context) => async (args) => {
            if (control.holding) control.sentWhileHolding.push(context.commandName ?? "?");
            if (control.holding && context.commandName === "BatchWriteItemCommand") {
              control.held += 1;
              await released;
            }
            return next(args);
          },
          { step: "initialize", name: "holdEventBatches" },
        ),
      );
      return { holdingStore, control, destroy };
    }

    /**
     * A new goal with `createdEvents` events on `holding`, then, with its event batches held, a commit
     * of two events that leaves them in the background (it must answer while the batch is held).
     */
    async function heldBackgroundCommit(
      holding: DynamoDbGoalStore,
      control: { holding: boolean },
      createdEvents: number,
    ) {
      const created = await holding.createGoal(aGoalRecord(), someEvents(createdEvents));
      control.holding = true;
      const committed = await within(
        holding.commit({ ...created.record, steps: 1 }, created.version, someEvents(2), {
          eventsInBackground: true,
        }),
        "the background commit",
      );
      return { goalId: created.record.goalId, committed };
    }

    /** `promise`, or a rejection naming `what` when it hangs (generous: DynamoDB Local on 2 cores). */
    function within<T>(promise: Promise<T>, what: string): Promise<T> {
      return withinMs(promise, what, 10_000);
    }

    function seqs(events: readonly { seq: number }[]): number[] {
      return events.map((event) => event.seq);
    }

    function range(from: number, to: number): number[] {
      return Array.from({ length: to - from + 1 }, (_, index) => from + index);
    }

    describe("goals", () => {
      it("createGoal then getGoal returns the record at version 1 with its events counted", async () => {
        // Prepare
        const record = aGoalRecord();

        // Act
        const created = await store.createGoal(record, someEvents(2, "goal.created"));
        const read = await store.getGoal(record.goalId);

        // Assess
        expect(created).toEqual({ record: { ...record, lastEventSeq: 2 }, version: 1 });
        expect(read).toEqual(created);
      });

      it("createGoal for an existing goal throws GoalAlreadyExistsError and keeps the first", async () => {
        // Prepare
        const first = aGoalRecord();
        await store.createGoal(first, someEvents(1));
        const second = aGoalRecord({ goalId: first.goalId, steps: 7 });

        // Act
        const attempt = store.createGoal(second, someEvents(1));

        // Assess
        await expect(attempt).rejects.toBeInstanceOf(GoalAlreadyExistsError);
        expect((await store.getGoal(first.goalId))?.record.steps).toBe(0);
        expect(await storedEventSeqs(first.goalId)).toEqual([1]);
      });

      it("getGoal of an unknown goal is undefined; commit and listEvents throw GoalNotFoundError", async () => {
        // Prepare
        const unknown = aGoalRecord();

        // Act
        const read = await store.getGoal(unknown.goalId);
        // Each failure is caught where it is made, so none goes unhandled while another is awaited.
        const commit = store.commit(unknown, 1, []).catch((error: unknown) => error);
        const events = store.listEvents(unknown.goalId, {}).catch((error: unknown) => error);

        // Assess
        expect(read).toBeUndefined();
        expect(await commit).toBeInstanceOf(GoalNotFoundError);
        expect(await events).toBeInstanceOf(GoalNotFoundError);
      });

      it("commit bumps the version and returns the record with the store's lastEventSeq", async () => {
        // Prepare
        const { record, version } = await store.createGoal(aGoalRecord(), someEvents(2));
        // The caller's lastEventSeq is ignored: the store allocates sequence numbers.
        const next: GoalRecord = { ...record, steps: 1, activeTask: "act", lastEventSeq: 0 };

        // Act
        const committed = await store.commit(next, version, someEvents(3));

        // Assess
        expect(committed).toEqual({ record: { ...next, lastEventSeq: 5 }, version: 2 });
        expect(await store.getGoal(record.goalId)).toEqual(committed);
      });

      it("a stale commit throws ConcurrentModificationError and changes neither record nor events", async () => {
        // Prepare
        const created = await store.createGoal(aGoalRecord(), someEvents(1));
        const current = await store.commit({ ...created.record, steps: 1 }, created.version, someEvents(1));

        // Act
        const stale = store.commit({ ...created.record, steps: 99 }, created.version, someEvents(4));

        // Assess
        await expect(stale).rejects.toBeInstanceOf(ConcurrentModificationError);
        expect(await store.getGoal(created.record.goalId)).toEqual(current);
        expect(await storedEventSeqs(created.record.goalId)).toEqual([1, 2]);
      });

      it("of concurrent commits from the same version exactly one wins", async () => {
        // Prepare
        const created = await store.createGoal(aGoalRecord(), someEvents(1));
        const writers = range(1, 10);

        // Act
        const outcomes = await Promise.allSettled(
          writers.map((steps) =>
            store.commit({ ...created.record, steps }, created.version, someEvents(steps, `writer-${steps}`)),
          ),
        );

        // Assess
        const winners = outcomes.filter((outcome) => outcome.status === "fulfilled");
        const losers = outcomes.filter((outcome) => outcome.status === "rejected");
        expect(winners).toHaveLength(1);
        for (const loser of losers) expect(loser.reason).toBeInstanceOf(ConcurrentModificationError);
        const stored = await store.getGoal(created.record.goalId);
        const winningSteps = stored?.record.steps ?? -1;
        expect(stored?.version).toBe(2);
        expect(stored?.record.lastEventSeq).toBe(1 + winningSteps);
        const { items } = await store.listEvents(created.record.goalId, {});
        expect(seqs(items)).toEqual(range(1, 1 + winningSteps));
        expect(items.slice(1).every((event) => event.type === `writer-${winningSteps}`)).toBe(true);
      });

      it("a goal item that no longer matches its schema is a CorruptStoreItemError", async () => {
        // Prepare
        const goalId = `goal-${randomUUID()}`;
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...goalKey(goalId), version: 1, record: { goalId }, pendingEvents: [] },
          }),
        );

        // Act
        const read = store.getGoal(goalId);

        // Assess: the error names the item and what in it is wrong
        await expect(read).rejects.toBeInstanceOf(CorruptStoreItemError);
        await expect(read).rejects.toThrow(`record of goal ${goalId}`);
        await expect(read).rejects.toThrow(/tenantId/);
      });
    });

    describe("goal item format", () => {
      it("stores the record compressed, and the item does not grow with the steps", async () => {
        // Prepare
        const record = aGoalRecord();
        let current = await store.createGoal(record, someEvents(1));
        const sizes: number[] = [];

        // Act
        for (let step = 1; step <= 30; step += 1) {
          current = await store.commit({ ...current.record, steps: step }, current.version, someEvents(2));
          await store.seenBefore(record.goalId, step, [`tool:t:success:${step}`, `artifact:a@${step}`]);
          const raw = await documents.send(
            new GetCommand({ TableName: tableName, Key: goalKey(record.goalId), ConsistentRead: true }),
          );
          const state: unknown = raw.Item?.state;
          sizes.push(state instanceof Uint8Array ? state.length : Number.NaN);
        }

        // Assess
        const raw = await documents.send(
          new GetCommand({ TableName: tableName, Key: goalKey(record.goalId), ConsistentRead: true }),
        );
        expect(raw.Item?.record).toBeUndefined();
        expect(raw.Item?.state).toBeInstanceOf(Uint8Array);
        expect((await store.getGoal(record.goalId))?.record.steps).toBe(30);
        expect(Math.max(...sizes.slice(-5)) - Math.min(...sizes.slice(0, 5))).toBeLessThan(32);
      });

      it("reads and commits a goal item written before compression (plain record and outbox)", async () => {
        // Prepare: the old format, with the seenFingerprints records kept then.
        const record = { ...aGoalRecord(), seenFingerprints: ["tool:a:success:1"], lastEventSeq: 1 };
        const outboxed = { ...someEvents(1)[0], goalId: record.goalId, seq: 1 };
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...goalKey(record.goalId), version: 3, record, pendingEvents: [outboxed] },
          }),
        );

        // Act
        const read = await store.getGoal(record.goalId);
        const committed = await store.commit({ ...record, steps: 1 }, 3, someEvents(1));
        const events = await store.listEvents(record.goalId, {});

        // Assess: an item of then is of record schema 1, which the record now says (and keeps).
        expect(read).toEqual({ record: { ...record, schema: 1 }, version: 3 });
        expect(committed.version).toBe(4);
        expect((await store.getGoal(record.goalId))?.record.seenFingerprints).toEqual(["tool:a:success:1"]);
        expect(events.items.map((event) => event.seq)).toEqual([1, 2]);
      });

      it("a compressed state that is not brotli JSON is a CorruptStoreItemError", async () => {
        // Prepare
        const goalId = `goal-${randomUUID()}`;
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...goalKey(goalId), version: 1, state: new Uint8Array([1, 2, 3, 4]) },
          }),
        );

        // Act
        const read = store.getGoal(goalId);

        // Assess
        await expect(read).rejects.toBeInstanceOf(CorruptStoreItemError);
        await expect(read).rejects.toThrow(`goal item GOAL#${goalId}: state is not compressed JSON`);
      });
    });

    describe("event log", () => {
      it("numbers events gap-free from 1 across commits and pages them with after, limit and nextSeq", async () => {
        // Prepare
        let goal = await store.createGoal(aGoalRecord(), someEvents(3, "goal.created"));
        for (const count of [2, 0, 4]) {
          goal = await store.commit(
            { ...goal.record, steps: goal.record.steps + 1 },
            goal.version,
            someEvents(count),
          );
        }

        // Act
        const all = await store.listEvents(goal.record.goalId, {});
        const pages = [];
        let after = 0;
        for (;;) {
          const page = await store.listEvents(goal.record.goalId, { after, limit: 4 });
          if (page.items.length === 0) break;
          pages.push(seqs(page.items));
          after = page.nextSeq;
        }
        const end = await store.listEvents(goal.record.goalId, { after: 9 });

        // Assess
        expect(goal.record.lastEventSeq).toBe(9);
        expect(seqs(all.items)).toEqual(range(1, 9));
        expect(all.nextSeq).toBe(9);
        expect(all.items[0]).toEqual({
          type: "goal.created",
          at: "2026-01-01T00:00:00.000Z",
          runId: "run-1",
          detail: { index: 0, note: "event 0" },
          goalId: goal.record.goalId,
          seq: 1,
        });
        expect(pages).toEqual([[1, 2, 3, 4], [5, 6, 7, 8], [9]]);
        expect(end).toEqual({ items: [], nextSeq: 9 });
      });

      it("after a crash between the goal write and the event writes, listEvents still returns every event", async () => {
        // Prepare
        const { crashingStore, destroy } = storeThatCrashesBeforeEventWrites();
        const created = await store.createGoal(aGoalRecord(), someEvents(2));
        try {
          await crashingStore.commit({ ...created.record, steps: 1 }, created.version, someEvents(3));
        } finally {
          destroy();
        }
        const goalId = created.record.goalId;
        expect(await storedEventSeqs(goalId)).toEqual([1, 2]);

        // Act
        const listed = await store.listEvents(goalId, {});

        // Assess
        expect(seqs(listed.items)).toEqual([1, 2, 3, 4, 5]);
        expect(listed.nextSeq).toBe(5);
        expect(await storedEventSeqs(goalId)).toEqual([1, 2, 3, 4, 5]);
      });

      it("the next commit repairs a log the crash left short, and never overwrites an unwritten outbox", async () => {
        // Prepare
        const { crashingStore, control, destroy } = storeThatCrashesBeforeEventWrites();
        const record = aGoalRecord();
        try {
          await crashingStore.createGoal(record, someEvents(2));
          // Still crashing: the commit cannot write the outbox it would replace, so it must not write at all.
          const blocked = crashingStore.commit({ ...record, steps: 1 }, 1, someEvents(1));
          await expect(blocked).rejects.toMatchObject({ name: "GoalStoreUnavailableError" });
          control.crashing = false;
        } finally {
          destroy();
        }
        expect(await storedEventSeqs(record.goalId)).toEqual([]);
        expect((await store.getGoal(record.goalId))?.version).toBe(1);

        // Act
        const committed = await store.commit({ ...record, steps: 1 }, 1, someEvents(1));

        // Assess
        expect(committed.record.lastEventSeq).toBe(3);
        expect(await storedEventSeqs(record.goalId)).toEqual([1, 2, 3]);
      });

      it("commits from a version it read or wrote without reading the goal again, events in one batch", async () => {
        // Prepare
        const { countingStore, commands, destroy } = storeCountingRequests();
        const sent: Record<string, string[]> = {};
        let goalId = "";
        try {
          const created = await countingStore.createGoal(aGoalRecord(), someEvents(2));
          goalId = created.record.goalId;
          commands.length = 0;

          // Act
          const own = await countingStore.commit(
            { ...created.record, steps: 1 },
            created.version,
            someEvents(3),
          );
          sent.ownWrite = commands.splice(0);
          const other = await store.getGoal(goalId);
          if (!other) throw new Error("goal vanished");
          await store.commit({ ...other.record, steps: 2 }, other.version, someEvents(1));
          const read = await countingStore.getGoal(goalId);
          if (!read) throw new Error("goal vanished");
          commands.length = 0;
          await countingStore.commit({ ...read.record, steps: 3 }, read.version, someEvents(1));
          sent.anotherWritersOutbox = commands.splice(0);
          const stale = countingStore.commit({ ...own.record, steps: 9 }, own.version, someEvents(1));
          await expect(stale).rejects.toMatchObject({ name: "ConcurrentModificationError" });
        } finally {
          destroy();
        }

        // Assess
        expect(sent.ownWrite).toEqual(["PutItemCommand", "BatchWriteItemCommand"]);
        expect(sent.anotherWritersOutbox).toEqual([
          "QueryCommand",
          "PutItemCommand",
          "BatchWriteItemCommand",
        ]);
        const listed = await store.listEvents(goalId, {});
        expect(seqs(listed.items)).toEqual(range(1, 7));
        expect(await storedEventSeqs(goalId)).toEqual(range(1, 7));
      });

      it("a commit with eventsInBackground answers before its event items are written; settled() and the next commit wait for them", async () => {
        // Prepare
        const { holdingStore, control, destroy } = storeHoldingEventBatches();
        try {
          // Act
          const { goalId, committed } = await heldBackgroundCommit(holdingStore, control, 2);
          let settled = false;
          const settling = holdingStore.settled().then(() => {
            settled = true;
          });
          let next = false;
          const nextCommit = holdingStore
            .commit({ ...committed.record, steps: 2 }, committed.version, someEvents(1))
            .then((written) => {
              next = true;
              return written;
            });
          const whileHeld = {
            stored: await storedEventSeqs(goalId),
            listed: seqs((await store.listEvents(goalId, {})).items),
            goal: (await store.getGoal(goalId))?.version,
          };
          const pending = { settled, next, held: control.held, sent: [...control.sentWhileHolding] };
          control.release();
          await within(settling, "settled()");
          const last = await within(nextCommit, "the next commit");

          // Assess: held, the events were committed (readers fill them from the outbox, and the
          // listing writes them back itself), not yet their own items, and neither settled() nor
          // the next commit went on without the held batch: the holding store sent only the
          // background commit's goal put and its batch, so the next commit had not overwritten
          // the goal item's outbox.
          expect(committed.record.lastEventSeq).toBe(4);
          expect(whileHeld).toEqual({ stored: [1, 2], listed: [1, 2, 3, 4], goal: 2 });
          expect(pending).toEqual({
            settled: false,
            next: false,
            held: 1,
            sent: ["PutItemCommand", "BatchWriteItemCommand"],
          });
          expect(last.version).toBe(3);
          expect(await storedEventSeqs(goalId)).toEqual([1, 2, 3, 4, 5]);
        } finally {
          control.release();
          destroy();
        }
      });

      it("another writer's commit while a background event write is held keeps every event, once", async () => {
        // Prepare
        const { holdingStore, control, destroy } = storeHoldingEventBatches();
        try {
          const { goalId, committed: own } = await heldBackgroundCommit(holdingStore, control, 1);

          // Act: another store commits on top while the batch is held, then the batch goes out.
          const other = await store.getGoal(goalId);
          if (!other) throw new Error("goal vanished");
          const theirs = await store.commit({ ...other.record, steps: 2 }, other.version, someEvents(1));
          control.release();
          await within(holdingStore.settled(), "settled()");
          const stale = holdingStore.commit({ ...own.record, steps: 9 }, own.version, someEvents(1));

          // Assess
          await expect(stale).rejects.toMatchObject({ name: "ConcurrentModificationError" });
          expect(theirs.record.lastEventSeq).toBe(4);
          expect(await storedEventSeqs(goalId)).toEqual([1, 2, 3, 4]);
          const listed = await store.listEvents(goalId, {});
          expect(seqs(listed.items)).toEqual([1, 2, 3, 4]);
          expect(listed.items.map((event) => event.detail)).toEqual(
            [...someEvents(1), ...someEvents(2), ...someEvents(1)].map((event) => event.detail),
          );
        } finally {
          control.release();
          destroy();
        }
      });

      it("re-sends events a batch left unprocessed, and names the goal and seqs when they stay so", async () => {
        // Prepare
        const { flakyStore, control, destroy } = storeLeavingBatchesUnprocessed();
        const created = await store.createGoal(aGoalRecord(), []);
        const { goalId } = created.record;
        try {
          // Act: one batch comes back unprocessed, then every one does
          const read = await flakyStore.getGoal(goalId);
          if (!read) throw new Error("goal vanished");
          control.unprocessed = 1;
          const first = await flakyStore.commit({ ...read.record, steps: 1 }, read.version, someEvents(2));
          const afterRetry = await storedEventSeqs(goalId);
          control.unprocessed = Number.POSITIVE_INFINITY;
          const second = await flakyStore.commit({ ...first.record, steps: 2 }, first.version, someEvents(1));
          const third = flakyStore.commit({ ...second.record, steps: 3 }, second.version, someEvents(1));

          // Assess: the second commit's events stay in its outbox; the next commit must write them first
          expect(afterRetry).toEqual([1, 2]);
          await expect(third).rejects.toMatchObject({
            name: "GoalStoreUnavailableError",
            message: expect.stringContaining(`1 of events 3..3 of goal ${goalId} unprocessed`),
          });
          expect(await storedEventSeqs(goalId)).toEqual([1, 2]);
        } finally {
          destroy();
        }
      });

      it("refuses events that use an attribute name the store reserves", async () => {
        // Prepare
        const created = await store.createGoal(aGoalRecord(), []);
        const event = { type: "step.completed", at: "2026-01-01T00:00:00.000Z", ttl: 1 };

        // Act
        const commit = store.commit(created.record, created.version, [event]);

        // Assess
        await expect(commit).rejects.toMatchObject({
          name: "ValidationError",
          issues: [{ path: "events.0.ttl" }],
        });
        expect(await store.getGoal(created.record.goalId)).toEqual(created);
      });
    });

    describe("listGoals", () => {
      async function createGoals(tenantId: string, statuses: readonly GoalRecord["status"][]) {
        const goals: GoalRecord[] = [];
        for (const [index, status] of statuses.entries()) {
          const createdAt = `2026-01-01T00:00:0${index}.000Z`;
          const { record } = await store.createGoal(aGoalRecord({ tenantId, status, createdAt }), []);
          goals.push(record);
        }
        return goals;
      }

      it("pages a tenant's goals with an opaque cursor and never shows another tenant's", async () => {
        // Prepare
        const tenantId = `tenant-${randomUUID()}`;
        const goals = await createGoals(tenantId, ["running", "running", "paused", "running", "paused"]);
        await createGoals(`tenant-${randomUUID()}`, ["running"]);

        // Act
        const first = await store.listGoals({ tenantId, limit: 2 });
        const listed = [...first.items];
        let cursor = first.cursor;
        while (cursor !== undefined) {
          const page = await store.listGoals({ tenantId, limit: 2, cursor });
          listed.push(...page.items);
          cursor = page.cursor;
        }

        // Assess
        expect(first.items).toHaveLength(2);
        expect(first.cursor).toEqual(expect.any(String));
        expect(listed.map((goal) => goal.goalId).sort()).toEqual(goals.map((goal) => goal.goalId).sort());
      });

      it("filters by status, oldest first, and follows a status change made by commit", async () => {
        // Prepare
        const tenantId = `tenant-${randomUUID()}`;
        const [running, , paused] = await createGoals(tenantId, ["running", "running", "paused"]);
        if (!running || !paused) throw new Error("goals not created");

        // Act
        const pausedBefore = await store.listGoals({ tenantId, status: "paused" });
        await store.commit({ ...running, status: "paused", activeTask: null }, 1, []);
        const pausedAfter = await store.listGoals({ tenantId, status: "paused" });
        const runningAfter = await store.listGoals({ tenantId, status: "running" });

        // Assess
        expect(pausedBefore.items.map((goal) => goal.goalId)).toEqual([paused.goalId]);
        expect(pausedBefore.cursor).toBeUndefined();
        expect(pausedAfter.items.map((goal) => goal.goalId)).toEqual([running.goalId, paused.goalId]);
        expect(runningAfter.items).toHaveLength(1);
      });

      it("counts a tenant's goals of one status, following a commit, never another tenant's", async () => {
        // Prepare
        const tenantId = `tenant-${randomUUID()}`;
        const [running] = await createGoals(tenantId, ["running", "running", "paused", "running"]);
        await createGoals(`tenant-${randomUUID()}`, ["running"]);
        if (!running) throw new Error("goals not created");

        // Act
        const before = await store.countGoals({ tenantId, status: "running" });
        await store.commit({ ...running, status: "paused", activeTask: null }, 1, []);
        const runningAfter = await store.countGoals({ tenantId, status: "running" });
        const pausedAfter = await store.countGoals({ tenantId, status: "paused" });
        const none = await store.countGoals({ tenantId, status: "completed" });

        // Assess
        expect([before, runningAfter, pausedAfter, none]).toEqual([3, 2, 2, 0]);
      });

      it("a cursor that is garbage or from another listing is a ValidationError naming cursor", async () => {
        // Prepare
        const tenantA = `tenant-${randomUUID()}`;
        const tenantB = `tenant-${randomUUID()}`;
        await createGoals(tenantA, ["running", "running"]);
        const { cursor: cursorOfA } = await store.listGoals({ tenantId: tenantA, limit: 1 });

        // Act
        const caught = (error: unknown) => error;
        const garbage = store.listGoals({ tenantId: tenantA, cursor: "not-a-cursor" }).catch(caught);
        const foreign = store.listGoals({ tenantId: tenantB, cursor: cursorOfA }).catch(caught);
        const badLimit = store.listGoals({ tenantId: tenantA, limit: 0 }).catch(caught);

        // Assess
        for (const attempt of [await garbage, await foreign]) {
          expect(attempt).toBeInstanceOf(ValidationError);
          expect(attempt).toMatchObject({ issues: [{ path: "cursor" }] });
        }
        expect(await badLimit).toMatchObject({
          name: "ValidationError",
          issues: [{ path: "limit" }],
        });
      });
    });

    describe("approvals", () => {
      it("puts, gets and decides an approval once; the second decision is refused", async () => {
        // Prepare
        const approval = anApproval();
        await store.putApproval(approval);
        const decision = {
          decision: "approve" as const,
          decidedBy: "alice",
          decidedAt: "2026-01-01T01:00:00.000Z",
        };

        // Act
        const read = await store.getApproval(approval.approvalId);
        const decided = await store.decideApproval(approval.approvalId, { status: "approved", decision });
        const again = store.decideApproval(approval.approvalId, { status: "rejected" });

        // Assess
        expect(read).toEqual(approval);
        expect(decided).toEqual({ ...approval, status: "approved", decision });
        await expect(again).rejects.toBeInstanceOf(ApprovalAlreadyDecidedError);
        expect(await store.getApproval(approval.approvalId)).toEqual(decided);
        const item = await documents.send(
          new GetCommand({ TableName: tableName, Key: approvalKey(approval.approvalId) }),
        );
        expect(item.Item?.ttl).toBeGreaterThan(Date.now() / 1000);
      });

      it("refuses a duplicate put, and a decision on an unknown approval", async () => {
        // Prepare
        const approval = anApproval();
        await store.putApproval(approval);

        // Act
        const [duplicate, unknown] = await Promise.allSettled([
          store.putApproval({ ...approval, taskToken: "another-token" }),
          store.decideApproval(`appr-${randomUUID()}`, { status: "expired" }),
        ]);

        // Assess
        expect(duplicate).toMatchObject({
          status: "rejected",
          reason: expect.any(ApprovalAlreadyExistsError),
        });
        expect(unknown).toMatchObject({ status: "rejected", reason: expect.any(ApprovalNotFoundError) });
        expect(await store.getApproval(approval.approvalId)).toEqual(approval);
        expect(await store.getApproval(`appr-${randomUUID()}`)).toBeUndefined();
      });

      it("of 20 concurrent decisions exactly one succeeds", async () => {
        // Prepare
        const approval = anApproval();
        await store.putApproval(approval);
        const deciders = range(1, 20).map((index) => `human-${index}`);

        // Act
        const outcomes = await Promise.allSettled(
          deciders.map((decidedBy) =>
            store.decideApproval(approval.approvalId, {
              status: "approved",
              decision: { decision: "approve", decidedBy, decidedAt: "2026-01-01T01:00:00.000Z" },
            }),
          ),
        );

        // Assess
        const winners = outcomes.flatMap((outcome) =>
          outcome.status === "fulfilled" ? [outcome.value] : [],
        );
        const losers = outcomes.flatMap((outcome) => (outcome.status === "rejected" ? [outcome.reason] : []));
        expect(winners).toHaveLength(1);
        expect(losers).toHaveLength(19);
        for (const loser of losers) expect(loser).toBeInstanceOf(ApprovalAlreadyDecidedError);
        expect((await store.getApproval(approval.approvalId))?.decision).toEqual(winners[0]?.decision);
      });

      it("hands a new wait's token to a pending or decided approval, keeping the decision; never to an expired one", async () => {
        // Prepare
        const pending = anApproval();
        const decided = anApproval();
        const expired = anApproval();
        for (const approval of [pending, decided, expired]) await store.putApproval(approval);
        const decision = {
          decision: "approve" as const,
          decidedBy: "ana",
          decidedAt: "2026-01-01T01:00:00.000Z",
        };
        await store.decideApproval(decided.approvalId, { status: "approved", decision });
        await store.decideApproval(expired.approvalId, { status: "expired" });

        // Act
        const replacedPending = await store.replaceApprovalToken(pending.approvalId, "token-of-run-2");
        const replacedDecided = await store.replaceApprovalToken(decided.approvalId, "token-of-run-2");
        // Caught at once: it may reject while the reads below are still under way.
        const refused = store
          .replaceApprovalToken(expired.approvalId, "token-of-run-2")
          .catch((error: unknown) => error);

        // Assess
        expect(replacedPending).toEqual({ ...pending, taskToken: "token-of-run-2" });
        expect(replacedDecided).toEqual({
          ...decided,
          status: "approved",
          decision,
          taskToken: "token-of-run-2",
        });
        expect(await store.getApproval(decided.approvalId)).toEqual(replacedDecided);
        expect(await refused).toBeInstanceOf(ApprovalAlreadyDecidedError);
        expect((await store.getApproval(expired.approvalId))?.taskToken).toBe(expired.taskToken);
      });

      it("keeps the token a new wait stored while a decision was being written", async () => {
        // Prepare: right before the decision's write, a new wait stores its token
        const approval = anApproval();
        await store.putApproval(approval);
        let replaced = false;
        const { store: racingStore, destroy } = storeOnOwnClient((client) =>
          client.middlewareStack.add(
            (next, context) => async (args) => {
              if (!replaced && context.commandName === "PutItemCommand") {
                replaced = true;
                await store.replaceApprovalToken(approval.approvalId, "token-of-run-2");
              }
              return next(args);
            },
            { step: "initialize", name: "replaceTokenBeforeDecision" },
          ),
        );

        // Act
        try {
          await racingStore.decideApproval(approval.approvalId, {
            status: "approved",
            decision: { decision: "approve", decidedBy: "ana", decidedAt: "2026-01-01T01:00:00.000Z" },
          });
        } finally {
          destroy();
        }

        // Assess
        expect(replaced).toBe(true);
        expect(await store.getApproval(approval.approvalId)).toMatchObject({
          status: "approved",
          taskToken: "token-of-run-2",
        });
      });

      it("lists a tenant's approvals by status", async () => {
        // Prepare
        const tenantId = `tenant-${randomUUID()}`;
        const first = anApproval({ tenantId, requestedAt: "2026-01-01T00:00:01.000Z" });
        const second = anApproval({ tenantId, requestedAt: "2026-01-01T00:00:02.000Z" });
        const third = anApproval({ tenantId, requestedAt: "2026-01-01T00:00:03.000Z" });
        for (const approval of [first, second, third, anApproval()]) await store.putApproval(approval);
        await store.decideApproval(second.approvalId, { status: "superseded" });

        // Act
        const pending = await store.listApprovals({ tenantId, status: "pending" });
        const superseded = await store.listApprovals({ tenantId, status: "superseded" });
        const firstOnly = await store.listApprovals({ tenantId, status: "pending", limit: 1 });

        // Assess
        expect(pending.map((approval) => approval.approvalId)).toEqual([first.approvalId, third.approvalId]);
        expect(superseded.map((approval) => approval.status)).toEqual(["superseded"]);
        expect(firstOnly.map((approval) => approval.approvalId)).toEqual([first.approvalId]);
      });
    });

    describe("checkpoints", () => {
      it("keeps the first checkpoint of a key: a later put returns the stored one", async () => {
        // Prepare
        const goalId = `goal-${randomUUID()}`;
        const first = aCheckpoint({ goalId }, "first answer");
        const retried = aCheckpoint({ goalId }, "second answer");

        // Act
        const stored = await store.putCheckpoint(first);
        const again = await store.putCheckpoint(retried);
        const read = await store.getCheckpoint({ goalId, runId: "run-1", iteration: 0, role: "reason" });

        // Assess
        expect(stored).toEqual(first);
        expect(again).toEqual(first);
        expect(read).toEqual(first);
      });

      it("gets a checkpoint by its exact key, and finds one or the role's next call number", async () => {
        // Prepare
        const goalId = `goal-${randomUUID()}`;
        const judged = aCheckpoint({ goalId, role: "judge", iteration: 2, ordinal: 1 }, "verdict: pass");
        for (const checkpoint of [
          aCheckpoint({ goalId, iteration: 0 }),
          aCheckpoint({ goalId, iteration: 1 }),
          aCheckpoint({ goalId, runId: "run-2", iteration: 0 }),
          aCheckpoint({ goalId, role: "judge", iteration: 2, ordinal: 0 }),
          judged,
          aCheckpoint({ goalId: `goal-${randomUUID()}` }),
        ]) {
          await store.putCheckpoint(checkpoint);
        }

        // Act
        const read = await store.getCheckpoint({
          goalId,
          runId: "run-1",
          iteration: 2,
          role: "judge",
          ordinal: 1,
        });
        const missing = await store.getCheckpoint({ goalId, runId: "run-1", iteration: 3, role: "judge" });
        const found = await store.findCheckpoint({
          goalId,
          runId: "run-1",
          iteration: 2,
          role: "judge",
          ordinal: 1,
        });
        const nextCall = async (role: ModelRole) =>
          store
            .findCheckpoint({ goalId, runId: "run-3", iteration: 0, role })
            .then((lookup) => (lookup.checkpoint === undefined ? lookup.calls : "found"));
        const calls = {
          reason: await nextCall("reason"),
          judge: await nextCall("judge"),
          plan: await nextCall("plan"),
        };

        // Assess
        expect(read).toEqual(judged);
        expect(missing).toBeUndefined();
        expect(found).toEqual({ checkpoint: judged });
        expect(calls).toEqual({ reason: 3, judge: 2, plan: 0 });
      });

      it("numbers a call from its run's newest checkpoint in one read, and counts them all for a run's first call", async () => {
        // Prepare: reason calls 0 and 1 in run r9, call 2 in r10 ("r10" sorts before "r9")
        const goalId = `goal-${randomUUID()}`;
        const made = [
          { runId: "r9", iteration: 0 },
          { runId: "r9", iteration: 1 },
          { runId: "r10", iteration: 0 },
        ].map((key, call) => ModelCheckpointSchema.parse({ ...aCheckpoint({ goalId, ...key }), call }));
        for (const checkpoint of made) await store.putCheckpoint(checkpoint);
        const { countingStore, commands, destroy } = storeCountingRequests();
        const lookup = async (runId: string, iteration: number) => {
          const before = commands.length;
          const found = await countingStore.findCheckpoint({ goalId, runId, iteration, role: "reason" });
          return { found, commands: commands.slice(before) };
        };

        try {
          // Act
          const next = await lookup("r10", 1);
          const retried = await lookup("r10", 0);
          const firstOfRun = await lookup("r11", 0);
          const behindNewest = await lookup("r9", 0);

          // Assess
          expect(next).toEqual({ found: { checkpoint: undefined, calls: 3 }, commands: ["QueryCommand"] });
          expect(retried).toEqual({ found: { checkpoint: made[2] }, commands: ["QueryCommand"] });
          expect(firstOfRun.found).toEqual({ checkpoint: undefined, calls: 3 });
          expect(behindNewest.found).toEqual({ checkpoint: made[0] });
        } finally {
          destroy();
        }
      });

      it("finds a role's latest checkpoint of a run by iteration, not by the order of the puts", async () => {
        // Prepare
        const goalId = `goal-${randomUUID()}`;
        const newest = aCheckpoint({ goalId, runId: "context", role: "summarize", iteration: 10 }, "third");
        for (const checkpoint of [
          newest,
          aCheckpoint({ goalId, runId: "context", role: "summarize", iteration: 9 }, "second"),
          aCheckpoint({ goalId, runId: "context", role: "summarize", iteration: 0 }, "first"),
          aCheckpoint({ goalId, runId: "contexts", role: "summarize", iteration: 99 }),
          aCheckpoint({ goalId, runId: "context", role: "reason", iteration: 50 }),
        ]) {
          await store.putCheckpoint(checkpoint);
        }

        // Act
        const latest = await store.latestCheckpoint(goalId, "summarize", "context");
        const none = await store.latestCheckpoint(goalId, "judge", "context");
        const badRun = store.latestCheckpoint(goalId, "summarize", "a#b").catch((error: unknown) => error);

        // Assess
        expect(latest).toEqual(newest);
        expect(none).toBeUndefined();
        expect(await badRun).toMatchObject({ name: "ValidationError" });
      });
    });

    describe("fingerprints", () => {
      it("answers which fingerprints an earlier step saw first; a retried step still sees its own as new", async () => {
        // Prepare
        const goalId = `goal-${randomUUID()}`;
        const longPath = `artifact:${"deep/".repeat(300)}report.md@0123456789abcdef`;

        // Act
        const first = await store.seenBefore(goalId, 1, ["tool:a:success:1", longPath, "tool:a:success:1"]);
        const retried = await store.seenBefore(goalId, 1, ["tool:a:success:1", longPath]);
        const second = await store.seenBefore(goalId, 2, ["tool:a:success:1", "tool:b:success:2", longPath]);
        const otherGoal = await store.seenBefore(`goal-${randomUUID()}`, 3, ["tool:a:success:1"]);
        const none = await store.seenBefore(goalId, 3, []);

        // Assess
        expect(first).toEqual([]);
        expect(retried).toEqual([]);
        expect([...second].sort()).toEqual([longPath, "tool:a:success:1"].sort());
        expect(otherGoal).toEqual([]);
        expect(none).toEqual([]);
      });

      it("of concurrent steps the first writer tags a fingerprint, and never grows the goal item", async () => {
        // Prepare
        const record = aGoalRecord();
        const created = await store.createGoal(record, []);
        const before = JSON.stringify((await store.getGoal(record.goalId))?.record).length;

        // Act
        const answers = await Promise.all(
          Array.from({ length: 6 }, () => store.seenBefore(record.goalId, 4, ["tool:x:success:9"])),
        );
        const later = await store.seenBefore(record.goalId, 5, ["tool:x:success:9"]);
        const after = await store.getGoal(record.goalId);

        // Assess
        expect(answers).toEqual(Array.from({ length: 6 }, () => []));
        expect(later).toEqual(["tool:x:success:9"]);
        expect(after?.version).toBe(created.version);
        expect(JSON.stringify(after?.record).length).toBe(before);
      });

      it("refuses a step that is not an integer >= 0 with a ValidationError naming step", async () => {
        // Act
        const refused = store.seenBefore(`goal-${randomUUID()}`, -1, ["tool:a:success:1"]);

        // Assess
        await expect(refused).rejects.toThrow(ValidationError);
        await expect(refused).rejects.toMatchObject({ issues: [{ path: "step" }] });
      });
    });

    describeLoopStoreContract(() => ({ client: documents, tableName }));
    describeLargePayloadContract(() => {
      if (!backend) throw new Error("backend not started");
      return { endpoint: backend.endpoint, tableName };
    });
  });
}

/** Whether a command input (document or wire form) puts an event item. */
function isEventPut(input: unknown): boolean {
  if (typeof input !== "object" || input === null) return false;
  if ("RequestItems" in input && typeof input.RequestItems === "object" && input.RequestItems !== null) {
    // BatchWriteItem: the event items go out in batches.
    return Object.values(input.RequestItems)
      .flat()
      .some((request: unknown) => {
        const put = typeof request === "object" && request !== null && "PutRequest" in request;
        return put && isEventPut(request.PutRequest);
      });
  }
  if (!("Item" in input)) return false;
  const item = input.Item;
  if (typeof item !== "object" || item === null || !("sk" in item)) return false;
  const sortKey = item.sk;
  const text = typeof sortKey === "object" && sortKey !== null && "S" in sortKey ? sortKey.S : sortKey;
  return typeof text === "string" && text.startsWith("EVT#");
}
