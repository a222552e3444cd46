import { setTimeout as delay } from "node:timers/promises";
import {
  BatchWriteCommand,
  type BatchWriteCommandInput,
  type BatchWriteCommandOutput,
  type DynamoDBDocumentClient,
  QueryCommand,
} from "@aws-sdk/lib-dynamodb";
import { type GoalEvent, GoalEventSchema, type NewGoalEvent } from "../../core/goal/goal-event";
import { parseOrThrow } from "../../core/goal/validation";
import { CorruptStoreItemError, GoalStoreUnavailableError, toStoreError } from "../shared/store-errors";
import { documentOf, ENCODED_DOCUMENTS_SCHEMA, parseStoredItem, toDocument } from "./dynamodb-items";
import { encodeDocument } from "./encoding/document-codec";
import { eventKey, eventSortKey, goalKey, invalidField, RESERVED_ATTRIBUTES } from "./goal-table-keys";
import { TABLE_DESIGN } from "./table-design";

const PK = TABLE_DESIGN.partitionKey;
/** One table's write requests of a BatchWriteItem (its UnprocessedItems come back in the same shape). */
type WriteRequests = NonNullable<BatchWriteCommandInput["RequestItems"]>[string];
const SK = TABLE_DESIGN.sortKey;
/** BatchWriteItem takes at most 25 items per request. */
const BATCH_SIZE = 25;
/** Rounds of re-sending what DynamoDB left unprocessed (throttling) before giving up. */
const UNPROCESSED_ROUNDS = 3;
/** Backoff before re-sending unprocessed items, doubled each round. */
const UNPROCESSED_BACKOFF_MS = 50;

/** Gives new events the sequence numbers after `lastSeq`, with their goal id, and checks them. */
export function numberEvents(goalId: string, lastSeq: number, events: readonly NewGoalEvent[]): GoalEvent[] {
  return events.map((event, index) => {
    // Event fields sit beside the item's keys: a field named like a key or `ttl` would corrupt the item.
    const reserved = Object.keys(event).find((field) => RESERVED_ATTRIBUTES.has(field));
    if (reserved) throw invalidField(`events.${index}.${reserved}`, "is a name the store reserves");
    const numbered = toDocument({ ...event, goalId, seq: lastSeq + index + 1 });
    return parseOrThrow(GoalEventSchema, numbered, "goal event");
  });
}

/**
 * The event items of the goal table (pk GOAL#id, sk EVT#<seq>). They are written after the goal item
 * that commits them, so they may lag behind it; the goal item's outbox (`pendingEvents`) covers the
 * lag. See DynamoDbGoalStore for the protocol.
 *
 * An event item is written in its goal's record schema (the goal item says which): from schema 3 the
 * event (with goalId and seq) is one encoded Binary attribute, `event` (encoding/document-codec.ts); before,
 * its fields sit beside the keys as they are. Both are read: the Binary attribute tells them apart
 * (a plain event is JSON, which has no Binary). A reader reads the goal item first, so code that
 * predates schema 3 refuses such a goal before it could meet one of its encoded events.
 */
export class DynamoDbEventLog {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * Events `from..to` (both included, all committed), oldest first. A seq without its item is taken
   * from the outbox and written back; one in neither place means a broken log.
   */
  async read(
    goalId: string,
    from: number,
    to: number,
    outbox: readonly GoalEvent[],
    schema: number,
  ): Promise<GoalEvent[]> {
    const stored = await this.query(goalId, from, to);
    const pending = new Map(outbox.map((event) => [event.seq, event]));
    const events: GoalEvent[] = [];
    const missing: GoalEvent[] = [];
    for (let seq = from; seq <= to; seq++) {
      const event = stored.get(seq) ?? pending.get(seq);
      if (!event) {
        throw new CorruptStoreItemError(`Goal ${goalId} event ${seq} is neither stored nor in the outbox`);
      }
      if (!stored.has(seq)) missing.push(event);
      events.push(event);
    }
    await this.appendBestEffort(missing, schema);
    return events;
  }

  /** Makes sure every outbox event has its item. Throws when one cannot be written. */
  async ensureWritten(goalId: string, outbox: readonly GoalEvent[], schema: number): Promise<void> {
    if (outbox.length === 0) return;
    const seqs = outbox.map((event) => event.seq);
    const stored = await this.query(goalId, Math.min(...seqs), Math.max(...seqs));
    await this.writeAll(
      outbox.filter((event) => !stored.has(event.seq)),
      schema,
    );
  }

  /**
   * Writes events that are already committed; a failure is left to the outbox repair paths.
   * Resolves to whether every one of them is now stored, and never rejects: commits leave it running
   * in the background, where a rejection would be unhandled.
   */
  async appendBestEffort(events: readonly GoalEvent[], schema: number): Promise<boolean> {
    try {
      await this.writeAll(events, schema);
      return true;
    } catch {
      return false;
    }
  }

  /** The event items with `from <= seq <= to` that exist, by seq. */
  private async query(goalId: string, from: number, to: number): Promise<Map<number, GoalEvent>> {
    const events = new Map<number, GoalEvent>();
    let startKey: Record<string, unknown> | undefined;
    try {
      do {
        const output = await this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            KeyConditionExpression: "#pk = :pk AND #sk BETWEEN :from AND :to",
            ExpressionAttributeNames: { "#pk": PK, "#sk": SK },
            ExpressionAttributeValues: {
              ":pk": goalKey(goalId)[PK],
              ":from": eventSortKey(from),
              ":to": eventSortKey(to),
            },
            ConsistentRead: true,
            ExclusiveStartKey: startKey,
          }),
        );
        for (const item of output.Items ?? []) {
          const { [PK]: _pk, [SK]: _sk, ...fields } = item;
          const encoded = fields[EVENT_ATTRIBUTE];
          const document = encoded instanceof Uint8Array ? documentOf(encoded, "event") : fields;
          const event = parseStoredItem(GoalEventSchema, document, "event");
          events.set(event.seq, event);
        }
        startKey = output.LastEvaluatedKey;
      } while (startKey);
    } catch (error) {
      throw toStoreError(error, `Query (events ${from}..${to} of goal ${goalId})`);
    }
    return events;
  }

  /**
   * Puts the events as their items, up to 25 per BatchWriteItem. The puts are unconditional: the
   * goal item's conditional write gave each seq exactly one content, so writing a seq again (an
   * earlier attempt, a concurrent repair) stores the same item. Throws when some stay unwritten.
   */
  private async writeAll(events: readonly GoalEvent[], schema: number): Promise<void> {
    for (let start = 0; start < events.length; start += BATCH_SIZE) {
      const batch = events.slice(start, start + BATCH_SIZE);
      let requests: WriteRequests = batch.map((event) => ({
        PutRequest: { Item: { ...eventItem(event, schema), ...eventKey(event.goalId, event.seq) } },
      }));
      for (let round = 0; requests.length > 0; round += 1) {
        if (round === UNPROCESSED_ROUNDS) {
          throw new GoalStoreUnavailableError(
            `DynamoDB BatchWriteItem left ${requests.length} of ${describeEvents(batch)} unprocessed`,
          );
        }
        if (round > 0) await delay(UNPROCESSED_BACKOFF_MS * 2 ** (round - 1));
        let output: BatchWriteCommandOutput;
        try {
          output = await this.client.send(
            new BatchWriteCommand({ RequestItems: { [this.tableName]: requests } }),
          );
        } catch (error) {
          throw toStoreError(error, `BatchWriteItem (${describeEvents(batch)})`);
        }
        requests = output.UnprocessedItems?.[this.tableName] ?? [];
      }
    }
  }
}

/** The attribute an encoded event item holds its event in. */
const EVENT_ATTRIBUTE = "event";

/** An event's attributes in an item of its goal's record schema: encoded from schema 3, else as they are. */
function eventItem(event: GoalEvent, schema: number): Record<string, unknown> {
  return schema >= ENCODED_DOCUMENTS_SCHEMA ? { [EVENT_ATTRIBUTE]: encodeDocument(event) } : event;
}

/**
 * Which goal and seqs a failed batch is about, for its error (a commit writes one goal's events): a
 * range when the seqs follow each other, else each of them (a repair writes only the missing ones).
 */
function describeEvents(batch: readonly GoalEvent[]): string {
  const seqs = batch.map((event) => event.seq);
  const first = seqs[0] ?? 0;
  const contiguous = seqs.every((seq, index) => seq === first + index);
  const which = contiguous ? `${first}..${seqs.at(-1) ?? first}` : seqs.join(", ");
  return `events ${which} of goal ${batch[0]?.goalId}`;
}
