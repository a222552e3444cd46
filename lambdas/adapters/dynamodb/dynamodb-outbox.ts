import { type DynamoDBDocumentClient, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { parseOrThrow } from "../../core/goal/validation";
import {
  type Outbox,
  type OutboxDeliveryOutcome,
  OutboxDeliverySchema,
  type OutboxMessage,
  OutboxMessageSchema,
} from "../../core/ports/outbox";
import { CorruptStoreItemError, isConditionalCheckFailed, toStoreError } from "../shared/store-errors";
import { getItemConsistently } from "./dynamodb-get-item";
import { queryGoalPartition } from "./dynamodb-goal-partition";
import { parseStoredItem, toDocument } from "./dynamodb-items";
import { putFirst } from "./dynamodb-put-first";
import { OUTBOX_PREFIX, outboxMessageKey } from "./goal-table-keys";

export interface DynamoDbOutboxOptions {
  /** Created once at module scope by the handler and shared across invocations. */
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

/**
 * The outbox as items of the goal table (sk `OUTBOX#<messageId>`, the message under `message`).
 * Keyed by messageId, not by time: a retry of the same side effect carries the same messageId but
 * maybe another `createdAt`, and must find the first message instead of sending a second.
 */
export class DynamoDbOutbox implements Outbox {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(options: DynamoDbOutboxOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
  }

  async putMessage(message: OutboxMessage): Promise<{ message: OutboxMessage; created: boolean }> {
    const parsed = parseOrThrow(OutboxMessageSchema, toDocument(message), "outbox message");
    const stored = await putFirst(this.client, {
      tableName: this.tableName,
      key: outboxMessageKey(parsed.goalId, parsed.messageId),
      item: { tenantId: parsed.tenantId, message: parsed },
      operation: "putMessage",
    });
    if (!stored) return { message: parsed, created: true };
    return {
      message: parseStoredItem(OutboxMessageSchema, stored.message, "outbox message"),
      created: false,
    };
  }

  async recordDelivery(
    goalId: string,
    messageId: string,
    outcome: OutboxDeliveryOutcome,
  ): Promise<OutboxMessage> {
    const delivery = parseOrThrow(OutboxDeliverySchema, toDocument(outcome), "outbox delivery");
    const key = outboxMessageKey(goalId, messageId);
    try {
      const updated = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: "SET #message.#delivery = :delivery",
          // Only the claim's own outcome lands: an outcome already recorded is never overwritten.
          ConditionExpression: "#message.#delivery.#state = :sending",
          ExpressionAttributeNames: { "#message": "message", "#delivery": "delivery", "#state": "state" },
          ExpressionAttributeValues: { ":delivery": delivery, ":sending": "sending" },
          ReturnValues: "ALL_NEW",
        }),
      );
      return parseStoredItem(OutboxMessageSchema, updated.Attributes?.message, "outbox message");
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw toStoreError(error, "recordDelivery");
    }
    const stored = await getItemConsistently(this.client, this.tableName, key, "recordDelivery");
    if (!stored) {
      throw new CorruptStoreItemError(
        `recordDelivery: outbox message ${messageId} of goal ${goalId} does not exist or was never claimed`,
      );
    }
    return parseStoredItem(OutboxMessageSchema, stored.message, "outbox message");
  }

  /** A goal's messages, oldest first (ties by messageId, so the order is stable). */
  async listMessages(goalId: string): Promise<readonly OutboxMessage[]> {
    const items = await queryGoalPartition(this.client, {
      tableName: this.tableName,
      goalId,
      prefix: OUTBOX_PREFIX,
      operation: "listMessages",
    });
    const messages = items.map((item) =>
      parseStoredItem(OutboxMessageSchema, item.message, "outbox message"),
    );
    // By instant, not by text: `…:00Z` sorts after `…:00.5Z` as text though it is earlier.
    return messages.sort(
      (a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || compare(a.messageId, b.messageId),
    );
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
