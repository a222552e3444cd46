import { type DynamoDBDocumentClient, paginateScan } from "@aws-sdk/lib-dynamodb";
import { type OutboxMessage, OutboxMessageSchema } from "../../../lambdas/core/ports/outbox";
import type { JsonValue } from "../shared/cloud-assembly-model";

/**
 * An outbox message as `GET /_local/outbox` shows it: JSON bodies (Slack blocks, emails) parsed.
 * A type, not an interface, so it is a JsonValue as the local route answers it.
 */
export type LocalOutboxEntry = {
  readonly messageId: string;
  readonly goalId: string;
  readonly channel: string;
  readonly createdAt: string;
  readonly message: JsonValue;
};

/**
 * Reads every goal's outbox from the local goal table(s): what Slack and email would have been sent
 * (the doors write their messages as JSON), and `notify` messages. Local only: deployed, these are
 * delivered, not listed.
 */
export function localOutboxReader(client: DynamoDBDocumentClient, tableNames: readonly string[]) {
  return async (): Promise<LocalOutboxEntry[]> => {
    const messages: OutboxMessage[] = [];
    for (const TableName of tableNames) {
      const pages = paginateScan(
        { client },
        {
          TableName,
          FilterExpression: "begins_with(#sk, :outbox)",
          ExpressionAttributeNames: { "#sk": "sk" },
          ExpressionAttributeValues: { ":outbox": "OUTBOX#" },
        },
      );
      for await (const page of pages) {
        for (const item of page.Items ?? []) {
          const parsed = OutboxMessageSchema.safeParse(item.message);
          if (parsed.success) messages.push(parsed.data);
        }
      }
    }
    messages.sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
    return messages.map(({ messageId, goalId, channel, createdAt, message }) => ({
      messageId,
      goalId,
      channel,
      createdAt,
      message: parseIfJson(message),
    }));
  };
}

function parseIfJson(text: string): JsonValue {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as JsonValue) : text;
  } catch {
    return text;
  }
}

/**
 * Calls `onMessage` once for each outbox message that appears, checking every `intervalMs`; returns
 * the function that stops watching. Messages already there when it starts are shown too.
 */
export function watchOutbox(
  read: () => Promise<LocalOutboxEntry[]>,
  onMessage: (entry: LocalOutboxEntry) => void,
  intervalMs = 1000,
): () => void {
  const seen = new Set<string>();
  let busy = false;
  const timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      for (const entry of await read()) {
        if (seen.has(entry.messageId)) continue;
        seen.add(entry.messageId);
        onMessage(entry);
      }
    } catch {
      // The table may be mid-shutdown; the next tick tries again.
    } finally {
      busy = false;
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
